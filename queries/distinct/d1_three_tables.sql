-- d1: two DISTINCT arguments from two tables over lineitem ⋈ orders ⋈ customer
select o_orderpriority, count(distinct l_suppkey), count(distinct c_nationkey)
from lineitem join orders on l_orderkey = o_orderkey join customer on o_custkey = c_custkey
group by o_orderpriority
order by o_orderpriority;
