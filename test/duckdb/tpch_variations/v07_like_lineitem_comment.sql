-- LIKE with `_` over lineitem's comments, NOT LIKE beside it
select l_shipmode, count(*) as n, sum(l_quantity) as qty
from lineitem
where l_comment like '%fluff_ly%' and l_comment not like '%final%' and l_shipdate < date '1993-01-01'
group by l_shipmode
order by l_shipmode;
