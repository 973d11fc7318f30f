-- COUNT(DISTINCT) per group
select l_returnflag, count(distinct l_suppkey) as suppliers, count(distinct l_partkey) as parts
from lineitem
where l_shipdate >= date '1998-01-01'
group by l_returnflag
order by l_returnflag;
