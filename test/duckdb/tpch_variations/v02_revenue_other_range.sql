-- q06 with other constants
select sum(l_extendedprice * l_discount) as revenue
from lineitem
where l_shipdate >= date '1995-01-01' and l_shipdate < date '1995-01-01' + interval '6' month
  and l_discount between 0.03 and 0.05 and l_quantity < 30;
