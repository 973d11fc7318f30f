-- q17's shape over suppliers of one nation: lines below a fifth of their supplier's average
select sum(l_extendedprice) / 7.0 as avg_yearly
from lineitem, supplier, nation
where s_suppkey = l_suppkey and s_nationkey = n_nationkey and n_name = 'PERU'
  and l_quantity < (select 0.2 * avg(l_quantity) from lineitem l2 where l2.l_suppkey = supplier.s_suppkey);
