-- d2: two DISTINCT arguments and a plain sum over a filtered four-table join
select n_name, count(distinct o_custkey), count(distinct l_partkey), sum(l_quantity)
from lineitem join orders on l_orderkey = o_orderkey join customer on o_custkey = c_custkey
  join nation on c_nationkey = n_nationkey
where o_orderdate < date '1995-01-01'
group by n_name
order by n_name;
