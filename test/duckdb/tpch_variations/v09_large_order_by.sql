-- a large sorted result: every order of two weeks, by price
select o_orderkey, o_custkey, o_totalprice, o_orderdate
from orders
where o_orderdate >= date '1995-06-01' and o_orderdate < date '1995-06-15'
order by o_totalprice desc, o_orderkey;
