SELECT l_returnflag, count(*), sum(l_quantity) FROM lineitem GROUP BY l_returnflag ORDER BY 1;
