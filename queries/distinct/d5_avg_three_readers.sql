-- d5: two DISTINCT arguments beside an avg (a third, plain branch) over lineitem ⋈ orders ⋈ customer
select c_mktsegment, count(distinct o_orderdate), count(distinct l_shipmode), avg(l_extendedprice)
from lineitem join orders on l_orderkey = o_orderkey join customer on o_custkey = c_custkey
group by c_mktsegment
order by c_mktsegment;
