-- q01 with another cut-off date and an extra predicate
select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty, sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
  avg(l_discount) as avg_disc, count(*) as count_order
from lineitem
where l_shipdate <= date '1997-06-30' and l_quantity > 10
group by l_returnflag, l_linestatus
order by l_returnflag, l_linestatus;
