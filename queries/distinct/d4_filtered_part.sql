-- d4: two DISTINCT arguments over a filtered lineitem ⋈ part
select l_returnflag, count(distinct l_partkey), count(distinct p_brand)
from lineitem join part on l_partkey = p_partkey
where l_shipdate < date '1993-01-01'
group by l_returnflag
order by l_returnflag;
