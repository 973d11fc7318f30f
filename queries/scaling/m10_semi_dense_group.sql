SELECT l_partkey, avg(l_quantity) FROM lineitem WHERE l_partkey IN (SELECT p_partkey FROM part WHERE p_brand = 'Brand#23' AND p_container = 'MED BOX') GROUP BY l_partkey ORDER BY l_partkey LIMIT 5;
