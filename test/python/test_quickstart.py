"""The README's example, and issue 15's five-line script: connect, query a pandas
DataFrame by its variable name, .arrow(), read a Parquet file."""
from decimal import Decimal

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

import tessera


def test_readme_example():
    con = tessera.connect()
    orders = pd.DataFrame({"id": [1, 2, 2], "qty": [3, 4, 5]})  # noqa: F841 (read by name)
    rows = con.execute("SELECT id, SUM(qty) AS qty FROM orders WHERE id > ? GROUP BY id", [1]).fetchall()
    assert rows == [(2, Decimal("9"))]
    t = con.sql("SELECT * FROM orders").arrow()
    assert isinstance(t, pa.Table) and t.num_rows == 3 and t.column_names == ["id", "qty"]
    con.close()


def test_five_lines_with_parquet(tmp_path):
    path = str(tmp_path / "sales.parquet")
    pq.write_table(pa.table({"region": ["eu", "us", "eu"], "amount": [10.5, 3.0, 1.5]}), path)
    con = tessera.connect()
    df = pd.DataFrame({"region": ["eu", "us"], "name": ["Europe", "Americas"]})  # noqa: F841
    out = con.sql(f"SELECT d.name, sum(s.amount) AS total FROM '{path}' s JOIN df d USING (region) "
                  "GROUP BY d.name ORDER BY d.name").arrow()
    assert out.to_pydict() == {"name": ["Americas", "Europe"], "total": [3.0, 12.0]}
    con.close()
