-- LIKE over comments (no dictionary: the GPU matches the bytes)
select o_orderpriority, count(*) as n
from orders
where o_comment like '%pending%deposits%' and o_orderdate >= date '1994-01-01'
group by o_orderpriority
order by o_orderpriority;
