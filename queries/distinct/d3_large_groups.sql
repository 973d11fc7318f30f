-- d3: two DISTINCT arguments with millions of (group, argument) pairs over lineitem ⋈ supplier ⋈ nation
select n_name, count(distinct l_partkey), count(distinct l_orderkey)
from lineitem join supplier on l_suppkey = s_suppkey join nation on s_nationkey = n_nationkey
group by n_name
order by n_name;
