SELECT sum(l_extendedprice * (1 - l_discount)) FROM lineitem;
