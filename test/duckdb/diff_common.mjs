// Helpers shared by the differential scripts (ssb_diff.mjs, tpch_diff.mjs): reading
// tessera's CSV output and putting both engines' values into the same text form.

// RFC 4180 CSV: returns rows of cells; an unquoted empty field is null (NULL).
export function parseCsv(text) {
  const rows = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const row = [];
    for (;;) {
      if (text[i] === '"') {
        let s = '';
        i++;
        for (;;) {
          if (i >= n) throw new Error('unterminated quoted CSV field');
          if (text[i] === '"') {
            i++;
            if (text[i] !== '"') break;
          }
          s += text[i++];
        }
        row.push(s);
      } else {
        let j = i;
        while (j < n && text[j] !== ',' && text[j] !== '\n' && text[j] !== '\r') j++;
        row.push(j === i ? null : text.slice(i, j));
        i = j;
      }
      if (text[i] !== ',') break;
      i++;
    }
    if (text[i] === '\r') i++;
    if (text[i] === '\n') i++;
    rows.push(row);
  }
  return rows;
}

// Text forms both sides are compared in.
export function canonDouble(x) {
  const d = Number(x);
  if (Number.isNaN(d)) return String(x);
  return String(Number(d.toPrecision(12)));
}

export function duckText(value, typeName) {
  if (value === null || value === undefined) return 'NULL';
  if (/^(DOUBLE|FLOAT|REAL)/.test(typeName)) return canonDouble(value);
  return String(value);  // integers (number/bigint), DECIMAL with its scale, DATE, VARCHAR
}

export function tesseraText(cell, typeName) {
  if (cell === null) return 'NULL';
  if (/^(DOUBLE|FLOAT|REAL)/.test(typeName)) return canonDouble(cell);
  return cell;
}

export function pad(s, w, right = false) {
  s = String(s);
  return right ? s.padStart(w) : s.padEnd(w);
}
