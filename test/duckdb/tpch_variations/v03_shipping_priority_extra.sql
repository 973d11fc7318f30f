-- q03 with another segment and an extra predicate on lineitem
select l_orderkey, sum(l_extendedprice * (1 - l_discount)) as revenue, o_orderdate, o_shippriority
from customer, orders, lineitem
where c_mktsegment = 'MACHINERY' and c_custkey = o_custkey and l_orderkey = o_orderkey
  and o_orderdate < date '1995-03-20' and l_shipdate > date '1995-03-20' and l_quantity < 25
group by l_orderkey, o_orderdate, o_shippriority
order by revenue desc, o_orderdate, l_orderkey
limit 20;
