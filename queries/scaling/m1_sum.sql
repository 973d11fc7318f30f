SELECT sum(l_quantity) FROM lineitem;
