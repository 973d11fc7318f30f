SELECT count(*) FROM orders, lineitem WHERE o_orderkey = l_orderkey AND l_receiptdate >= date '1994-01-01' AND l_receiptdate < date '1994-02-01';
