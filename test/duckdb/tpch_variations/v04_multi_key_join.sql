-- lineitem joined to partsupp on both keys: supply cost against sale price per nation
select n_name, count(*) as lines, sum(l_extendedprice - ps_supplycost * l_quantity) as margin
from lineitem, partsupp, supplier, nation
where l_partkey = ps_partkey and l_suppkey = ps_suppkey and ps_suppkey = s_suppkey and s_nationkey = n_nationkey
  and l_shipdate >= date '1996-01-01' and l_shipdate < date '1996-04-01'
group by n_name
order by n_name;
