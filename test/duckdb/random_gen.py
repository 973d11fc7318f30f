"""The random SQL query generator of random_queries.py: seeded, over the TPC-H tables and
`mix` (a table derived from lineitem with a column of every type tessera has, each with
NULLs). Every query comes with the construct it exercises (the per-construct summary's
row) and whether its output order is fixed (a total ORDER BY: compared in order, else
as multisets)."""
import random
import re

# DuckDB's and tessera's CREATE TABLE AS of the mixed-type table (same statement on both).
MIX_SQL = """CREATE TABLE mix AS SELECT
  l_orderkey * 10 + l_linenumber AS k,
  CASE WHEN l_linenumber = 3 THEN NULL ELSE l_partkey END AS i,
  CASE WHEN l_linenumber = 4 THEN NULL ELSE CAST(l_orderkey AS BIGINT) * 1000003 - l_suppkey * 7919 END AS b,
  CASE WHEN l_linenumber = 5 THEN NULL ELSE l_extendedprice END AS d,
  CASE WHEN l_linenumber = 2 THEN NULL ELSE CAST(l_discount AS DOUBLE) * CAST(l_quantity AS DOUBLE) - 1.5 END AS f,
  CASE WHEN l_linenumber = 6 THEN NULL ELSE l_shipdate END AS dt,
  CASE WHEN l_linenumber = 1 AND l_orderkey % 3 = 0 THEN NULL ELSE l_shipmode END AS s,
  CASE WHEN l_linenumber = 7 OR l_orderkey % 11 = 0 THEN NULL ELSE l_returnflag = 'R' END AS bo
FROM lineitem WHERE l_orderkey < 450"""

# Type categories: I integer (INTEGER/BIGINT), N exact or approximate number (DECIMAL,
# DOUBLE), D date, S string, B boolean.
TABLES = {
    'mix': {'key': ['k'], 'cols': {'k': 'I', 'i': 'I', 'b': 'I', 'd': 'N', 'f': 'N', 'dt': 'D', 's': 'S', 'bo': 'B'},
            'group': ['{a}.s', '{a}.bo', '{a}.i % 7', 'year({a}.dt)', '{a}.k % 4']},
    'lineitem': {'key': ['l_orderkey', 'l_linenumber'],
                 'cols': {'l_orderkey': 'I', 'l_partkey': 'I', 'l_suppkey': 'I', 'l_linenumber': 'I',
                          'l_quantity': 'N', 'l_extendedprice': 'N', 'l_discount': 'N', 'l_tax': 'N',
                          'l_returnflag': 'S', 'l_linestatus': 'S', 'l_shipdate': 'D', 'l_commitdate': 'D',
                          'l_receiptdate': 'D', 'l_shipinstruct': 'S', 'l_shipmode': 'S'},
                 'group': ['{a}.l_returnflag', '{a}.l_linestatus', '{a}.l_shipmode', '{a}.l_linenumber', 'year({a}.l_shipdate)'],
                 'restrict': '{a}.l_orderkey < 800'},
    'orders': {'key': ['o_orderkey'],
               'cols': {'o_orderkey': 'I', 'o_custkey': 'I', 'o_orderstatus': 'S', 'o_totalprice': 'N',
                        'o_orderdate': 'D', 'o_orderpriority': 'S', 'o_clerk': 'S', 'o_shippriority': 'I'},
               'group': ['{a}.o_orderstatus', '{a}.o_orderpriority', 'year({a}.o_orderdate)'],
               'restrict': '{a}.o_orderkey < 3200'},
    'customer': {'key': ['c_custkey'],
                 'cols': {'c_custkey': 'I', 'c_name': 'S', 'c_nationkey': 'I', 'c_phone': 'S',
                          'c_acctbal': 'N', 'c_mktsegment': 'S'},
                 'group': ['{a}.c_mktsegment', '{a}.c_nationkey']},
    'part': {'key': ['p_partkey'],
             'cols': {'p_partkey': 'I', 'p_name': 'S', 'p_mfgr': 'S', 'p_brand': 'S', 'p_type': 'S',
                      'p_size': 'I', 'p_container': 'S', 'p_retailprice': 'N'},
             'group': ['{a}.p_mfgr', '{a}.p_brand', '{a}.p_size % 5']},
    'supplier': {'key': ['s_suppkey'],
                 'cols': {'s_suppkey': 'I', 's_name': 'S', 's_nationkey': 'I', 's_phone': 'S', 's_acctbal': 'N'},
                 'group': ['{a}.s_nationkey']},
    'nation': {'key': ['n_nationkey'],
               'cols': {'n_nationkey': 'I', 'n_name': 'S', 'n_regionkey': 'I'}, 'group': ['{a}.n_regionkey']},
    'region': {'key': ['r_regionkey'], 'cols': {'r_regionkey': 'I', 'r_name': 'S'}, 'group': ['{a}.r_name']},
    'partsupp': {'key': ['ps_partkey', 'ps_suppkey'],
                 'cols': {'ps_partkey': 'I', 'ps_suppkey': 'I', 'ps_availqty': 'I', 'ps_supplycost': 'N'},
                 'group': ['{a}.ps_suppkey % 10', '{a}.ps_availqty % 3']},
}
# Tables a row-returning query may scan whole (small enough to compare quickly).
SCAN_WEIGHTS = {'mix': 8, 'customer': 2, 'part': 2, 'supplier': 1, 'nation': 1, 'region': 1,
                'orders': 1, 'lineitem': 1, 'partsupp': 1}
# Join edges: (left table, left column, right table, right column); a left join's unmatched
# rows come from the right side's extra ON condition and from NULL keys (mix.i).
EDGES = [('mix', 'i', 'part', 'p_partkey'), ('mix', 'i', 'partsupp', 'ps_partkey'),
         ('mix', 'k', 'mix', 'k'), ('mix', 'i', 'mix', 'i'),
         ('lineitem', 'l_orderkey', 'orders', 'o_orderkey'), ('orders', 'o_custkey', 'customer', 'c_custkey'),
         ('customer', 'c_nationkey', 'nation', 'n_nationkey'), ('supplier', 's_nationkey', 'nation', 'n_nationkey'),
         ('nation', 'n_regionkey', 'region', 'r_regionkey'), ('part', 'p_partkey', 'partsupp', 'ps_partkey'),
         ('partsupp', 'ps_suppkey', 'supplier', 's_suppkey'), ('customer', 'c_nationkey', 'supplier', 's_nationkey')]

CONSTRUCTS = ['filter', 'project', 'case', 'cast', 'string_func', 'like', 'in_list', 'between',
              'join_inner', 'join_left', 'join_right', 'join_full', 'outer_join_null',
              'subquery_scalar', 'subquery_exists', 'subquery_in', 'subquery_correlated',
              'subquery_decorr_agg', 'subquery_in_select', 'subquery_lateral', 'subquery_nested',
              'group_by', 'agg_distinct', 'having', 'union', 'union_all', 'intersect', 'except',
              'window', 'order_limit', 'ternary_filter', 'ternary_where', 'intersect_all', 'except_all', 'cte_twice',
              # expression features tessera may lack: avoided when the probe says so
              'is_distinct', 'is_true', 'ilike', 'minmax_distinct', 'date_interval', 'ordered_agg']


class Gen:
    def __init__(self, seed, samples, skip=()):
        self.r = random.Random(seed)
        self.samples = samples  # (table, column) -> sorted list of distinct Python values
        self.skip = set(skip)   # constructs tessera reported "not supported" for in the probe
        self.alias_n = 0
        self.avoided = {}       # construct -> times the generator avoided it (not supported)

    def can(self, construct):
        """False (and counted) when the construct was probed as not supported."""
        if construct in self.skip:
            self.avoided[construct] = self.avoided.get(construct, 0) + 1
            return False
        return True

    # ---- literals ------------------------------------------------------------------
    def sample(self, table, col):
        vals = self.samples.get((table, col)) or [None]
        return self.r.choice(vals)

    def lit(self, cat, table=None, col=None):
        r = self.r
        if table is not None and r.random() < 0.8:
            v = self.sample(table, col)
            if v is not None:
                return sql_literal(v)
        if r.random() < 0.05:
            return 'NULL'
        if cat == 'I':
            return str(r.choice([0, 1, 2, 3, 7, 10, 100, 1000, -1, -5]))
        if cat == 'N':
            return r.choice(['0.5', '1.25', '100.00', '-2.5', '0.06', '1000.5', '2.5e0', '-0.0'])
        if cat == 'D':
            return f"DATE '{r.choice(['1992-01-01', '1994-06-30', '1995-03-15', '1996-02-29', '1998-12-01'])}'"
        if cat == 'S':
            return "'" + r.choice(['AIR', 'MAIL', 'R', 'A', '', 'x y', 'Customer#000000001', 'BRAZIL']) + "'"
        return r.choice(['true', 'false'])

    # ---- expressions ---------------------------------------------------------------
    def col(self, scope, cat):
        """A column of category cat among scope [(alias, table)]; None when there is none."""
        cands = [(a, t, c) for a, t in scope for c, k in TABLES[t]['cols'].items() if k == cat]
        if not cands:
            return None
        a, t, c = self.r.choice(cands)
        return f'{a}.{c}', t, c

    def expr(self, scope, cat, depth=2, tags=None):
        """A random expression of category cat over the columns of scope."""
        r = self.r
        tags = tags if tags is not None else set()
        if cat == 'B':
            return f'({self.pred(scope, depth, tags)})'
        c = self.col(scope, cat)
        if depth <= 0 or r.random() < 0.35:
            if c and r.random() < 0.85:
                return c[0]
            v = self.lit(cat, *(c[1:] if c else ()))
            # No NULL literal as an operand: DuckDB folds NULL operands of arithmetic and
            # functions (typed or not) to the untyped NULL and types the result by its
            # overload resolution (NULL - NULL is BIGINT, CAST(NULL AS INTEGER) + 1.5
            # INTEGER), rules not worth copying. NULLs come from the columns instead;
            # predicates keep NULL literals (IN lists, comparisons: the ternary logic).
            while v == 'NULL':
                v = self.lit(cat)
            return v
        roll = r.random()
        if roll < 0.15:
            tags.add('case')
            w = self.pred(scope, depth - 1, tags)
            e1, e2 = self.expr(scope, cat, depth - 1, tags), self.expr(scope, cat, depth - 1, tags)
            if r.random() < 0.3:
                return f'CASE WHEN {w} THEN {e1} END'
            if r.random() < 0.3:
                e3 = self.expr(scope, cat, depth - 1, tags)
                return f'CASE WHEN {w} THEN {e1} WHEN {self.pred(scope, depth - 1, tags)} THEN {e3} ELSE {e2} END'
            return f'CASE WHEN {w} THEN {e1} ELSE {e2} END'
        if roll < 0.27:
            tags.add('cast')
            return self.cast_to(scope, cat, depth, tags)
        if roll < 0.33:
            a, b = self.expr(scope, cat, depth - 1, tags), self.expr(scope, cat, depth - 1, tags)
            return f'{r.choice(["coalesce", "least", "greatest"])}({a}, {b})' if cat != 'B' else a
        if cat in 'IN':
            return self.num_expr(scope, cat, depth, tags)
        if cat == 'D':
            e = self.expr(scope, 'D', depth - 1, tags)
            return r.choice([f'{e} + {r.randint(-40, 40)}', f'{e} - {r.randint(0, 400)}',
                             f'last_day({e})', f"make_date(year({e}), month({e}), 1)"])
        if cat == 'S':
            tags.add('string_func')
            e = self.expr(scope, 'S', depth - 1, tags)
            return r.choice([f'upper({e})', f'lower({e})', f'substring({e}, {r.randint(0, 4)}, {r.randint(0, 5)})',
                             f"{e} || '{r.choice(['-', 'x', ''])}'", f"concat({e}, {self.expr(scope, 'I', depth - 1, tags)})",
                             f"replace({e}, '{r.choice(['A', 'I', ' '])}', '{r.choice(['', 'zz'])}')",
                             f'trim({e})', f"lpad({e}, {r.randint(0, 12)}, '*')", f"rpad({e}, {r.randint(0, 12)}, '.')",
                             f'left({e}, {r.randint(0, 4)})', f'right({e}, {r.randint(0, 4)})',
                             f'repeat({e}, {r.randint(0, 2)})'])
        return c[0] if c else self.lit(cat)

    def num_expr(self, scope, cat, depth, tags):
        r = self.r
        a = self.expr(scope, cat, depth - 1, tags)
        if cat == 'I':
            roll = r.random()
            if roll < 0.5:
                b = self.expr(scope, 'I', depth - 1, tags)
                return f'({a} {r.choice(["+", "-", "*", "%", "//"])} {b})'
            if roll < 0.65:
                return f'abs({a})'
            if roll < 0.8:
                tags.add('string_func')
                return f'length({self.expr(scope, "S", depth - 1, tags)})'
            if roll < 0.9:
                return f'{r.choice(["year", "month", "day", "dayofweek", "quarter"])}({self.expr(scope, "D", depth - 1, tags)})'
            return f'CAST(sign({a}) AS INTEGER)'  # DuckDB's sign is TINYINT, a type tessera lacks
        b = self.expr(scope, r.choice('IN'), depth - 1, tags)
        roll = r.random()
        if roll < 0.6:
            return f'({a} {r.choice(["+", "-", "*", "/"])} {b})'
        if roll < 0.75:
            return f'round({a}, {r.randint(0, 2)})'
        if roll < 0.85:
            return f'{r.choice(["abs", "floor", "ceil"])}({a})'
        return f'({self.expr(scope, "I", depth - 1, tags)} / {r.choice(["7", "2", "0", "3.0"])})'

    def cast_to(self, scope, cat, depth, tags):
        r = self.r
        if cat == 'I':
            src = r.choice('INS')
            e = self.expr(scope, src, depth - 1, tags) if src != 'S' else f"'{r.randint(-50, 5000)}'"
            return f'CAST({e} AS {r.choice(["INTEGER", "BIGINT"])})'
        if cat == 'N':
            e = self.expr(scope, r.choice('IN'), depth - 1, tags)
            return f'CAST({e} AS {r.choice(["DOUBLE", "DECIMAL(18,3)", "DECIMAL(12,1)", "DECIMAL(15,2)"])})'
        if cat == 'D':
            return r.choice([f"CAST('{r.randint(1992, 1998)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}' AS DATE)",
                             f'CAST({self.expr(scope, "D", depth - 1, tags)} AS DATE)'])
        if cat == 'S':
            return f'CAST({self.expr(scope, r.choice("INDSB"), depth - 1, tags)} AS VARCHAR)'
        return f'CAST({self.expr(scope, "I", depth - 1, tags)} AS BOOLEAN)'

    def pred(self, scope, depth=2, tags=None):
        """A random predicate (may be NULL: NULL columns, NULL literals, NOT IN with NULLs)."""
        r = self.r
        tags = tags if tags is not None else set()
        roll = r.random()
        if depth > 0 and roll < 0.22:
            a, b = self.pred(scope, depth - 1, tags), self.pred(scope, depth - 1, tags)
            return f'({a} {r.choice(["AND", "OR"])} {b})'
        if depth > 0 and roll < 0.28:
            return f'(NOT {self.pred(scope, depth - 1, tags)})'
        cat = r.choice('IINNDSSB')
        c = self.col(scope, cat)
        if c is None:
            cat, c = 'I', self.col(scope, 'I')
        lhs = c[0] if r.random() < 0.7 else f'({self.expr(scope, cat, depth - 1, tags)})'
        roll = r.random()
        if cat == 'B' and roll < 0.3:
            if r.random() < 0.4 and self.can('is_true'):
                return f'{lhs} {r.choice(["IS TRUE", "IS NOT FALSE", "IS FALSE", "IS NOT TRUE"])}'
            return r.choice([lhs, f'{lhs} = {self.lit("B")}'])
        if roll < 0.1:
            return f'{lhs} IS {r.choice(["", "NOT "])}NULL'
        if roll < 0.5:
            rhs = self.lit(cat, c[1], c[2]) if r.random() < 0.7 else self.expr(scope, cat, depth - 1, tags)
            if cat == 'D' and r.random() < 0.3 and self.can('date_interval'):
                # DATE +/- INTERVAL is a TIMESTAMP: a DATE column against it (midnights and not)
                tags.add('date_interval')
                unit = r.choice(['DAY', 'MONTH', 'YEAR', 'HOUR', 'MINUTE'])
                rhs = f"{self.lit('D')} {r.choice(['+', '-'])} INTERVAL '{r.choice([1, 3, 12, 90, 36])}' {unit}"
            op = r.choice(['=', '<>', '<', '<=', '>', '>=', '!='])
            if r.random() < 0.1 and self.can('is_distinct'):
                op = r.choice(['IS DISTINCT FROM', 'IS NOT DISTINCT FROM'])
            return f'{lhs} {op} {rhs}'
        if roll < 0.65:
            tags.add('in_list')
            items = [self.lit(cat, c[1], c[2]) for _ in range(r.randint(1, 5))]
            return f'{lhs} {r.choice(["IN", "NOT IN"])} ({", ".join(items)})'
        if roll < 0.8 and cat != 'B':
            tags.add('between')
            lo, hi = self.lit(cat, c[1], c[2]), self.lit(cat, c[1], c[2])
            return f'{lhs} {r.choice(["BETWEEN", "NOT BETWEEN"])} {lo} AND {hi}'
        if cat == 'S':
            tags.add('like')
            v = self.sample(c[1], c[2])
            v = v if isinstance(v, str) else 'A'
            i = r.randint(0, max(0, len(v) - 1))
            pat = r.choice([v[:i] + '%', '%' + v[i:i + 3] + '%', '%' + v[i:], v[:i] + '_' + v[i + 1:], '%', '_%_'])
            pat = pat.replace("'", "''")
            if r.random() < 0.15:
                tags.add('string_func')
                return f"{r.choice(['starts_with', 'contains', 'ends_with'])}({lhs}, '{pat.strip('%_')}')"
            op = r.choice(['LIKE', 'NOT LIKE', 'LIKE'])
            if r.random() < 0.2 and self.can('ilike'):
                op = r.choice(['ILIKE', 'NOT ILIKE'])
            return f"{lhs} {op} '{pat}'"
        rhs = self.lit(cat, c[1], c[2])
        return f'{lhs} {r.choice(["=", "<", ">="])} {rhs}'

    # ---- FROM clauses --------------------------------------------------------------
    def alias(self):
        self.alias_n += 1
        return f't{self.alias_n}'

    def pick_table(self, weights=SCAN_WEIGHTS):
        names = list(weights)
        return self.r.choices(names, [weights[n] for n in names])[0]

    def restrict(self, a, t):
        """The predicate limiting a big table's rows (keeps queries cheap), or None."""
        rs = TABLES[t].get('restrict')
        return rs.format(a=a) if rs else None

    def join(self, kind):
        """(from_sql, scope, where_parts, key_exprs) of a two-table join of kind."""
        r = self.r
        lt, lc, rt, rc = r.choice(EDGES)
        if r.random() < 0.5 and kind in ('LEFT', 'RIGHT', 'FULL'):
            lt, lc, rt, rc = rt, rc, lt, lc
        la, ra = self.alias(), self.alias()
        scope = [(la, lt), (ra, rt)]
        on = f'{la}.{lc} = {ra}.{rc}'
        if r.random() < 0.5:
            on += f' AND {self.pred([(ra, rt)] if r.random() < 0.7 else scope, 1)}'
        where = [w for w in (self.restrict(la, lt), self.restrict(ra, rt)) if w]
        keys = [f'{la}.{k}' for k in TABLES[lt]['key']] + [f'{ra}.{k}' for k in TABLES[rt]['key']]
        return f'{lt} {la} {kind} JOIN {rt} {ra} ON {on}', scope, where, keys

    # ---- queries -------------------------------------------------------------------
    def query(self):
        """(construct, sql, ordered)."""
        r = self.r
        kinds = ['filter', 'project', 'join', 'subquery', 'group_by', 'setop', 'window', 'order_limit', 'ternary',
                 'cte_twice']
        k = r.choices(kinds, [14, 10, 16, 14, 14, 8, 8, 6, 10, 4])[0]
        return getattr(self, 'q_' + k)()

    def select_list(self, scope, n, tags):
        return [f'{self.expr(scope, self.r.choice("IINNDSSB"), 2, tags)} AS c{i}' for i in range(n)]

    def q_filter(self):
        t = self.pick_table()
        a = self.alias()
        tags = set()
        scope = [(a, t)]
        where = [self.pred(scope, 2, tags)]
        rs = self.restrict(a, t)
        if rs:
            where.append(rs)
        cols = [f'{a}.{c}' for c in TABLES[t]['cols']][:6]
        construct = next((c for c in ('date_interval', 'like', 'in_list', 'between') if c in tags), 'filter')
        return construct, f'SELECT {", ".join(cols)} FROM {t} {a} WHERE {" AND ".join(where)}', False

    def q_project(self):
        t = self.pick_table()
        a = self.alias()
        tags = set()
        scope = [(a, t)]
        items = self.select_list(scope, self.r.randint(1, 4), tags)
        where = [w for w in (self.restrict(a, t),) if w]
        if self.r.random() < 0.5:
            where.append(self.pred(scope, 1, tags))
        keys = [f'{a}.{k}' for k in TABLES[t]['key']]
        sql = f'SELECT {", ".join(keys + items)} FROM {t} {a}' + (f' WHERE {" AND ".join(where)}' if where else '')
        construct = next((c for c in ('string_func', 'case', 'cast') if c in tags), 'project')
        return construct, sql, False

    def q_join(self):
        r = self.r
        kind = r.choices(['INNER', 'LEFT', 'RIGHT', 'FULL'], [4, 4, 2, 2])[0]
        construct = {'INNER': 'join_inner', 'LEFT': 'join_left', 'RIGHT': 'join_right', 'FULL': 'join_full'}[kind]
        if not self.can(construct):
            kind, construct = 'LEFT', 'join_left'
        frm, scope, where, keys = self.join(kind)
        tags = set()
        (la, lt), (ra, rt) = scope
        if kind != 'INNER' and r.random() < 0.4:
            # NULL-producing side tested in WHERE (anti-join shape) or in the select list.
            construct = 'outer_join_null'
            null_side = ra if kind == 'LEFT' else la if kind == 'RIGHT' else r.choice([la, ra])
            nt = rt if null_side == ra else lt
            where.append(f'{null_side}.{TABLES[nt]["key"][0]} IS {r.choice(["", "NOT "])}NULL')
            items = [f'coalesce({self.expr(scope, "I", 1, tags)}, -1) AS c0',
                     f'{self.expr(scope, r.choice("NSD"), 1, tags)} AS c1']
        else:
            items = self.select_list(scope, r.randint(1, 3), tags)
        if r.random() < 0.5:
            where.append(self.pred(scope, 1, tags))
        if r.random() < 0.5:
            # Aggregated over the join: the join's rows are all counted.
            g = self.expr(scope, r.choice('SIB'), 0, tags)
            sql = (f'SELECT {g} AS g, count(*) AS n, {self.agg(scope, tags)} AS a1 FROM {frm}'
                   + (f' WHERE {" AND ".join(where)}' if where else '') + ' GROUP BY 1')
            return construct, sql, False
        sql = f'SELECT {", ".join(keys + items)} FROM {frm}' + (f' WHERE {" AND ".join(where)}' if where else '')
        return construct, sql, False

    def agg(self, scope, tags, allow_distinct=True, numeric=False):
        r = self.r
        roll = r.random()
        if allow_distinct and roll < 0.2:
            tags.add('agg_distinct')
            fn = r.choice(["count", "sum", "avg", "min", "max"])
            if fn in ('min', 'max') and not self.can('minmax_distinct'):
                fn = 'count'
            return f'{fn}(DISTINCT {self.expr(scope, r.choice("IN"), 1, tags)})'
        if roll < 0.26 and self.can('ordered_agg'):
            # ORDER BY inside the call, ordered by the value itself (ties are equal values)
            tags.add('ordered_agg')
            e = self.expr(scope, 'I' if numeric else r.choice('IS'), 1, tags)
            if numeric or r.random() < 0.5:
                return r.choice([f'first({e} ORDER BY {e} DESC NULLS FIRST)', f'last({e} ORDER BY {e})'])
            return f"string_agg(CAST({e} AS VARCHAR), '|' ORDER BY {e}{r.choice(['', ' DESC'])})"
        fn = r.choice(['count', 'sum', 'avg', 'min', 'max', 'count', 'sum', 'stddev_samp', 'count_star']
                      + ([] if numeric else ['bool_or', 'bool_and']))
        if fn == 'count_star':
            return 'count(*)'
        if fn in ('bool_or', 'bool_and'):
            return f'{fn}({self.pred(scope, 1, tags)})'
        cat = r.choice('INDSB') if fn == 'count' or (fn in ('min', 'max') and not numeric) else r.choice('IN')
        if fn == 'stddev_samp':
            return f'round({fn}({self.expr(scope, cat, 1, tags)}), 6)'
        return f'{fn}({self.expr(scope, cat, 1, tags)})'

    def q_group_by(self):
        r = self.r
        t = self.pick_table({'mix': 6, 'lineitem': 2, 'orders': 2, 'customer': 1, 'part': 1, 'partsupp': 1,
                             'supplier': 1, 'nation': 1})
        a = self.alias()
        scope = [(a, t)]
        tags = set()
        gcands = TABLES[t]['group']
        gs = r.sample(gcands, r.randint(1, min(2, len(gcands))))
        gexprs = [g.format(a=a) for g in gs]
        aggs = [f'{self.agg(scope, tags)} AS a{i}' for i in range(r.randint(1, 3))]
        sql = f'SELECT {", ".join(f"{g} AS g{i}" for i, g in enumerate(gexprs))}, {", ".join(aggs)} FROM {t} {a}'
        where = [w for w in (self.restrict(a, t),) if w]
        if r.random() < 0.5:
            where.append(self.pred(scope, 1, tags))
        if where:
            sql += f' WHERE {" AND ".join(where)}'
        sql += f' GROUP BY {", ".join(gexprs)}'
        if r.random() < 0.4:
            tags.add('having')
            sql += f' HAVING {self.agg(scope, tags, False, True)} {r.choice(["<", ">", ">=", "<>"])} {r.choice(["1", "2", "10", "100.5", "0"])}'
        ordered = False
        if r.random() < 0.4:
            sql += ' ORDER BY ' + ', '.join(f'{i + 1} {r.choice(["ASC", "DESC", "", "NULLS FIRST", "DESC NULLS LAST"])}'
                                            for i in range(len(gexprs)))
            ordered = True
            if r.random() < 0.5:
                sql += f' LIMIT {r.randint(1, 5)}'
        construct = ('ordered_agg' if 'ordered_agg' in tags else 'having' if 'having' in tags
                     else 'agg_distinct' if 'agg_distinct' in tags else 'group_by')
        return construct, sql, ordered

    def q_cte_twice(self):
        """An aggregation read twice (a CTE joined with itself, counted beside itself, or
        UNION ALL-ed with itself): the CPU computes it once (shared subplans)."""
        r = self.r
        _, inner, _ = self.q_group_by()
        cols = re.findall(r' AS ((?:g|a)\d+)\b', inner.split(' FROM ')[0])
        gs = [c for c in cols if c.startswith('g')]
        x, y = self.alias(), self.alias()
        kind = r.choice(['self_join', 'count_beside', 'union_all'])
        if kind == 'self_join':
            on = ' AND '.join(f'{x}.{g} = {y}.{g}' for g in gs)
            items = [f'{x}.{c}' for c in cols] + [f'{y}.{c} AS y_{c}' for c in cols if c.startswith('a')]
            sql = f'WITH c AS ({inner}) SELECT {", ".join(items)} FROM c {x} JOIN c {y} ON {on}'
        elif kind == 'count_beside':
            sql = f'WITH c AS ({inner}) SELECT {", ".join(cols)}, (SELECT count(*) FROM c) AS n FROM c'
        else:
            sql = f'WITH c AS ({inner}) SELECT {", ".join(cols)} FROM c UNION ALL SELECT {", ".join(cols)} FROM c'
        return 'cte_twice', sql, False

    def q_subquery(self):
        r = self.r
        t = self.pick_table({'mix': 5, 'customer': 1, 'part': 1, 'supplier': 1, 'orders': 1})
        a = self.alias()
        scope = [(a, t)]
        tags = set()
        where = [w for w in (self.restrict(a, t),) if w]
        kind = r.choice(['scalar', 'exists', 'in', 'correlated', 'scalar_select',
                         'decorr_agg', 'in_select', 'lateral', 'nested'])
        b = self.alias()
        if kind in ('decorr_agg', 'in_select', 'lateral', 'nested'):
            return getattr(self, 'q_' + kind)(b)
        if kind in ('scalar', 'scalar_select'):
            t2 = self.pick_table({'mix': 3, 'part': 1, 'orders': 1, 'supplier': 1})
            s2 = [(b, t2)]
            cat = r.choice('IN')
            c2 = self.col(s2, cat)[0]
            sub = f'(SELECT {r.choice(["max", "min", "avg", "sum", "count"])}({c2}) FROM {t2} {b} WHERE {self.pred(s2, 1)})'
            if kind == 'scalar_select':
                items = [f'{sub} AS sq']
            else:
                where.append(f'{self.expr(scope, cat, 1, tags)} {r.choice(["<", ">", "=", "<>"])} {sub}')
                items = []
            construct = 'subquery_scalar'
        elif kind == 'exists':
            lt, lc, rt, rc = r.choice([e for e in EDGES if e[0] == t] or [('mix', 'i', 'part', 'p_partkey')])
            if lt != t:
                t, a, scope = lt, self.alias(), None
                scope = [(a, t)]
                where = [w for w in (self.restrict(a, t),) if w]
            s2 = [(b, rt)]
            where.append(f'{r.choice(["", "NOT "])}EXISTS (SELECT 1 FROM {rt} {b} WHERE {b}.{rc} = {a}.{lc} AND {self.pred(s2, 1)})')
            items, construct = [], 'subquery_exists'
        elif kind == 'in':
            lt, lc, rt, rc = r.choice([e for e in EDGES if e[0] == t] or [('mix', 'i', 'part', 'p_partkey')])
            if lt != t:
                t, a = lt, self.alias()
                scope = [(a, t)]
                where = [w for w in (self.restrict(a, t),) if w]
            s2 = [(b, rt)]
            where.append(f'{a}.{lc} {r.choice(["IN", "NOT IN"])} (SELECT {b}.{rc} FROM {rt} {b} WHERE {self.pred(s2, 1)})')
            items, construct = [], 'subquery_in'
        else:
            # Correlated scalar aggregate over the same table grouped by a low-cardinality column.
            t, a = 'mix', self.alias()
            scope = [(a, t)]
            where = []
            g = r.choice(['s', 'bo', 'i'])
            cat = r.choice('IN')
            c = self.col([(b, 'mix')], cat)[0]
            sub = f'(SELECT {r.choice(["avg", "max", "count", "sum"])}({c}) FROM mix {b} WHERE {b}.{g} = {a}.{g} AND {self.pred([(b, "mix")], 1)})'
            if r.random() < 0.5:
                where.append(f'{a}.{c.split(".")[1]} {r.choice(["<", ">", ">="])} {sub}')
                items = []
            else:
                items = [f'{sub} AS sq']
            construct = 'subquery_correlated'
        keys = [f'{a}.{k}' for k in TABLES[t]['key']]
        items = keys + items + self.select_list(scope, 1, tags)
        sql = f'SELECT {", ".join(items)} FROM {t} {a}' + (f' WHERE {" AND ".join(where)}' if where else '')
        return construct, sql, False

    # ---- correlated subqueries the general decorrelation evaluates -----------------
    MIX_BY_CAT = {'I': ['i', 'k', 'b'], 'N': ['d', 'f'], 'D': ['dt'], 'S': ['s'], 'B': ['bo']}

    def correlation(self, a, b):
        """A predicate between mix rows b (inner) and a (outer) other than inner = outer:
        <, <=, <>, BETWEEN, an OR of equalities, expressions of the outer columns."""
        r = self.r
        cat = r.choice('IINDS')
        x, y = r.choice(self.MIX_BY_CAT[cat]), r.choice(self.MIX_BY_CAT[cat])
        form = r.choice(['cmp', 'cmp', 'ne', 'between', 'or', 'expr'])
        if form == 'between' and cat in 'IN':
            return f'{b}.{x} BETWEEN {a}.{y} - 20 AND {a}.{y} + 20'
        if form == 'or':
            return f'({b}.s = {a}.s OR {b}.i = {a}.i % 100)'
        if form == 'expr' and cat in 'IN':
            return f'{b}.{x} % 50 {r.choice(["<", "=", ">="])} {a}.{y} % 50 + 1'
        if form == 'ne':
            return f'{b}.{x} <> {a}.{y}'
        return f'{b}.{x} {r.choice(["<", "<=", ">", ">="])} {a}.{y}'

    def mix_agg(self, b):
        r = self.r
        fn = r.choice(['count(*)', 'count', 'sum', 'min', 'max', 'avg'])
        if fn == 'count(*)':
            return fn
        cat = r.choice('IN') if fn in ('sum', 'avg') else r.choice('INDS')
        return f'{fn}({b}.{r.choice(self.MIX_BY_CAT[cat])})'

    def q_decorr_agg(self, b):
        """A scalar aggregate subquery correlated by non-equality predicates."""
        r = self.r
        a = self.alias()
        pred = self.correlation(a, b)
        if r.random() < 0.4:
            pred += f' AND {self.pred([(b, "mix")], 1)}'
        sel = self.mix_agg(b) if r.random() < 0.8 else f'{a}.k % 7 + count(*)'  # an outer column beside
        sub = f'(SELECT {sel} FROM mix {b} WHERE {pred})'
        if r.random() < 0.3:
            sub = f'coalesce({sub}, 0)' if 'count' in sub.split('FROM')[0] else sub
        where = [f'{a}.k % {r.choice([3, 5, 7])} = 0']
        if r.random() < 0.3:
            where.append(f'{sub} IS {r.choice(["", "NOT "])}NULL')
            items = []
        else:
            items = [f'{sub} AS sq']
        items = [f'{a}.k'] + items + self.select_list([(a, 'mix')], 1, set())
        return 'subquery_decorr_agg', f'SELECT {", ".join(items)} FROM mix {a} WHERE {" AND ".join(where)}', False

    def q_in_select(self, b):
        """A correlated [NOT] IN (SELECT ...) in the select list, maybe under CASE."""
        r = self.r
        a = self.alias()
        cat = r.choice('IIS')
        x, y = r.choice(self.MIX_BY_CAT[cat]), r.choice(self.MIX_BY_CAT[cat])
        corr = r.choice([f'{b}.s = {a}.s', f'{b}.bo = {a}.bo', self.correlation(a, b)])
        lhs = f'{a}.{x}' if cat == 'S' else f'{a}.{x} % 20'
        rhs = f'{b}.{y}' if cat == 'S' else f'{b}.{y} % 20'
        e = f'{lhs} {r.choice(["IN", "NOT IN"])} (SELECT {rhs} FROM mix {b} WHERE {corr})'
        if r.random() < 0.3:
            e = f'CASE WHEN {e} THEN 1 WHEN {a}.i IS NULL THEN 2 ELSE 3 END'
        items = [f'{a}.k', f'{e} AS sq']
        return 'subquery_in_select', f'SELECT {", ".join(items)} FROM mix {a} WHERE {a}.k % 4 = 1', False

    def q_lateral(self, b):
        """A LATERAL subquery referring to the outer row in its select list, under an
        aggregate or in GROUP BY."""
        r = self.r
        a = self.alias()
        l = self.alias()
        form = r.choice(['select', 'agg', 'group', 'left'])
        if form == 'select':
            sub = f'SELECT {a}.k + 1 AS v1, {self.expr([(a, "mix")], r.choice("INS"), 1)} AS v2'
        elif form == 'agg':
            sub = f'SELECT {self.mix_agg(b)} AS v1, count(*) AS v2 FROM mix {b} WHERE {self.correlation(a, b)}'
        elif form == 'group':
            sub = (f'SELECT {b}.s AS v1, count(*) AS v2 FROM mix {b} WHERE {b}.i = {a}.i OR {b}.k = {a}.k '
                   f'GROUP BY {b}.s')
        else:
            sub = f'SELECT {b}.k AS v1, {b}.d - {a}.d AS v2 FROM mix {b} WHERE {b}.i = {a}.i AND {b}.k <> {a}.k'
        join = f', LATERAL ({sub}) {l}' if form != 'left' else f' LEFT JOIN LATERAL ({sub}) {l} ON true'
        sql = f'SELECT {a}.k, {l}.v1, {l}.v2 FROM mix {a}{join} WHERE {a}.k % 5 = 2'
        return 'subquery_lateral', sql, False

    def q_nested(self, b):
        """A subquery inside a subquery referring to the outermost query."""
        r = self.r
        a = self.alias()
        c = self.alias()
        inner = r.choice([f'EXISTS (SELECT 1 FROM part {c} WHERE {c}.p_partkey = {b}.i AND {c}.p_size > {a}.i % 50)',
                          f'{b}.d > (SELECT avg({c}.d) FROM mix {c} WHERE {c}.s = {a}.s)',
                          f'{b}.i IN (SELECT {c}.ps_partkey FROM partsupp {c} WHERE {c}.ps_availqty < {a}.k)'])
        sub = f'(SELECT {self.mix_agg(b)} FROM mix {b} WHERE {b}.s = {a}.s AND {inner})'
        sql = f'SELECT {a}.k, {sub} AS sq FROM mix {a} WHERE {a}.k % 9 = 4'
        return 'subquery_nested', sql, False

    def q_setop(self):
        r = self.r
        op = r.choice(['UNION', 'UNION ALL', 'INTERSECT', 'EXCEPT', 'INTERSECT ALL', 'EXCEPT ALL'])
        if op.endswith(' ALL') and not self.can(op.split()[0].lower() + '_all'):
            op = op.split()[0]
        construct = {'UNION': 'union', 'UNION ALL': 'union_all', 'INTERSECT': 'intersect',
                     'EXCEPT': 'except', 'INTERSECT ALL': 'intersect_all', 'EXCEPT ALL': 'except_all'}[op]
        t = self.pick_table({'mix': 5, 'customer': 1, 'part': 1, 'nation': 1, 'supplier': 1})
        tags = set()
        cols = r.sample([c for c in TABLES[t]['cols']], r.randint(1, 2))
        sides = []
        for _ in range(2):
            a = self.alias()
            s = [(a, t)]
            sel = ', '.join(f'{a}.{c}' if r.random() < 0.7 else
                            f'{self.expr(s, TABLES[t]["cols"][c], 1, tags)}' for c in cols)
            sides.append(f'SELECT {sel} FROM {t} {a} WHERE {self.pred(s, 1, tags)}')
        sql = f'{sides[0]} {op} {sides[1]}'
        return construct, sql, False

    def q_window(self):
        r = self.r
        if not self.can('window'):
            return self.q_filter()
        t = 'mix' if r.random() < 0.7 else self.pick_table({'customer': 1, 'part': 1, 'supplier': 1, 'orders': 1})
        a = self.alias()
        scope = [(a, t)]
        tags = set()
        key = [f'{a}.{k}' for k in TABLES[t]['key']]
        part = f'PARTITION BY {TABLES[t]["group"][0].format(a=a)}' if r.random() < 0.7 else ''
        val = self.col(scope, r.choice('IN'))[0]
        # Functions whose value depends on the order get a total ORDER BY (the key).
        ordk = ', '.join(f'{k} {r.choice(["ASC", "DESC"])}' for k in key)
        funcs = [f'row_number() OVER ({part} ORDER BY {ordk})',
                 f'rank() OVER ({part} ORDER BY {val})', f'dense_rank() OVER ({part} ORDER BY {val} DESC)',
                 f'sum({val}) OVER ({part})', f'count(*) OVER ({part})', f'max({val}) OVER ({part})',
                 f'sum({val}) OVER ({part} ORDER BY {ordk})', f'lag({val}) OVER ({part} ORDER BY {ordk})',
                 f'lead({val}, 2) OVER ({part} ORDER BY {ordk})', f'avg({val}) OVER ({part} ORDER BY {ordk} ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)',
                 f'min({val}) OVER ({part} ORDER BY {val})', f'first_value({val}) OVER ({part} ORDER BY {ordk})',
                 f'ntile(3) OVER ({part} ORDER BY {ordk})', f'count({val}) OVER ({part} ORDER BY {ordk} ROWS BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING)']
        items = key + [f'{f} AS w{i}' for i, f in enumerate(r.sample(funcs, r.randint(1, 3)))]
        where = [w for w in (self.restrict(a, t),) if w]
        if t == 'orders':
            where.append(f'{a}.o_orderkey < 1000')
        if r.random() < 0.5:
            where.append(self.pred(scope, 1, tags))
        sql = f'SELECT {", ".join(items)} FROM {t} {a}' + (f' WHERE {" AND ".join(where)}' if where else '')
        return 'window', sql, False

    def q_order_limit(self):
        r = self.r
        t = self.pick_table()
        a = self.alias()
        scope = [(a, t)]
        tags = set()
        key = TABLES[t]['key']
        # A total order: any leading expressions, then the key.
        lead = []
        if r.random() < 0.6:
            lead = [f'{self.expr(scope, r.choice("INDSB"), 1, tags)}']
        order = [f'{e} {r.choice(["ASC", "DESC", "ASC NULLS FIRST", "DESC NULLS LAST", ""])}' for e in lead] + \
                [f'{a}.{k} {r.choice(["ASC", "DESC"])}' for k in key]
        items = [f'{a}.{k}' for k in key] + [f'{e} AS o{i}' for i, e in enumerate(lead)] + self.select_list(scope, 1, tags)
        where = [w for w in (self.restrict(a, t),) if w]
        if r.random() < 0.5:
            where.append(self.pred(scope, 1, tags))
        sql = (f'SELECT {", ".join(items)} FROM {t} {a}' + (f' WHERE {" AND ".join(where)}' if where else '')
               + f' ORDER BY {", ".join(order)} LIMIT {r.choice([1, 3, 10, 50, 200])}')
        if r.random() < 0.3:
            sql += f' OFFSET {r.randint(0, 20)}'
        return 'order_limit', sql, True

    def q_ternary(self):
        """Ternary-logic partitioning: count(*) = count FILTER p + FILTER NOT p + FILTER p IS NULL."""
        r = self.r
        t = self.pick_table()
        a = self.alias()
        scope = [(a, t)]
        p = self.pred(scope, 2)
        rs = self.restrict(a, t)
        w = f' WHERE {rs}' if rs else ''
        if r.random() < 0.5 and self.can('ternary_filter'):
            sql = (f'SELECT count(*) AS total, count(*) FILTER (WHERE {p}) AS t_true, '
                   f'count(*) FILTER (WHERE NOT ({p})) AS t_false, count(*) FILTER (WHERE ({p}) IS NULL) AS t_null '
                   f'FROM {t} {a}{w}')
            return 'ternary_filter', sql, True
        # Three WHERE clauses (the filter path: pushdown, zone maps) and the whole count.
        a2 = (' AND ' + rs) if rs else ''
        sql = (f'SELECT (SELECT count(*) FROM {t} {a}{w}) AS total, '
               f'(SELECT count(*) FROM {t} {a} WHERE ({p}){a2}) AS t_true, '
               f'(SELECT count(*) FROM {t} {a} WHERE NOT ({p}){a2}) AS t_false, '
               f'(SELECT count(*) FROM {t} {a} WHERE ({p}) IS NULL{a2}) AS t_null')
        return 'ternary_where', sql, True


def sql_literal(v):
    import datetime
    import decimal
    if v is None:
        return 'NULL'
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if isinstance(v, (int, decimal.Decimal)):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, datetime.date):
        return f"DATE '{v.isoformat()}'"
    return "'" + str(v).replace("'", "''") + "'"
