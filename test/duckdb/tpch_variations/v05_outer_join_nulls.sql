-- customers and their orders of one month: NULL sums for customers without any
select c_nationkey, count(*) as customers, count(o_orderkey) as orders, sum(o_totalprice) as total, min(o_orderdate) as first
from customer left join orders on c_custkey = o_custkey and o_orderdate >= date '1996-02-01' and o_orderdate < date '1996-03-01'
where c_acctbal > 9000
group by c_nationkey
order by c_nationkey;
