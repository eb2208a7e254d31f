/* satdoku explorer: boards drawn as SVG for every family.
 *
 * A puzzle comes as the Instances stage file writes it (kind, givens, less_than, box, ...) plus
 * its grid `shape` ([rows, cols], or [layers, rows, cols] for 3-D). Givens are bold on grey,
 * filled cells blue; Sudoku boxes get thick lines; Futoshiki
 * relations are drawn between neighbouring cells (< > between columns, ∧ ∨ between rows: the
 * point is at the smaller cell); relations between cells that are not neighbours are listed
 * below the board. The layers of a 3-D puzzle are drawn side by side.
 */
"use strict";

const SATBOARD = (() => {
  const SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

  /** Cell values of a board: a symbol string ('.' or '0' empty) or a list of integers. */
  function values(board) {
    if (Array.isArray(board)) return board.map(Number);
    return [...board].map((ch) => SYMBOLS.indexOf(ch.toUpperCase()) + 1);
  }

  /** [layers, rows, cols] of a puzzle's shape. */
  function dims(shape) {
    if (shape.length === 3) return shape;
    if (shape.length === 2) return [1, shape[0], shape[1]];
    return [1, 1, shape[0]];
  }

  /** SVG of a board; `board` (optional) fills the cells the givens leave empty; `name` goes
   * into data-board so that a page (or a test) can find the drawing. */
  function draw(p, board, name) {
    const giv = values(p.givens);
    const val = board == null ? giv : values(board);
    const [L, R, C] = dims(p.shape);
    const side = Math.max(R, C);
    const cell = side <= 9 ? 34 : side <= 16 ? 26 : side <= 25 ? 22 : 17;
    const lt = p.less_than || [];
    const gap = lt.length ? Math.round(cell * 0.6) : 0;
    const pad = 4,
      label = L > 1 ? 16 : 0,
      between = 22;
    const w = C * cell + (C - 1) * gap,
      h = R * cell + (R - 1) * gap;
    const box = p.kind === "sudoku" ? p.box : 0; // 3-D layers have lines, not boxes
    const font = Math.round(cell * (p.domain > 9 ? 0.45 : 0.6));
    const out = [];
    const at = (l, r, c) => [
      pad + l * (w + between) + c * (cell + gap),
      pad + label + r * (cell + gap),
    ];
    for (let l = 0; l < L; l++) {
      const [x0, y0] = at(l, 0, 0);
      if (L > 1) out.push(`<text class="layer" x="${x0}" y="${y0 - 4}">layer ${l + 1}</text>`);
      for (let r = 0; r < R; r++) {
        for (let c = 0; c < C; c++) {
          const i = (l * R + r) * C + c;
          const [x, y] = at(l, r, c);
          const given = giv[i] > 0;
          out.push(
            `<rect class="c${given ? " g" : ""}" x="${x}" y="${y}"` +
              ` width="${cell}" height="${cell}"/>`,
          );
          if (val[i] > 0) {
            out.push(
              `<text class="v ${given ? "g" : "f"}" data-cell="${i}" x="${x + cell / 2}" ` +
                `y="${y + cell / 2}" font-size="${font}">${val[i]}</text>`,
            );
          }
        }
      }
      if (box && !gap) {
        // thick lines around boxes (and the border)
        for (let k = 0; k <= R; k += box)
          out.push(
            `<line class="box" x1="${x0}" y1="${y0 + k * cell}"` +
              ` x2="${x0 + w}" y2="${y0 + k * cell}"/>`,
          );
        for (let k = 0; k <= C; k += box)
          out.push(
            `<line class="box" x1="${x0 + k * cell}" y1="${y0}"` +
              ` x2="${x0 + k * cell}" y2="${y0 + h}"/>`,
          );
      } else if (!gap) {
        out.push(`<rect class="border" x="${x0}" y="${y0}" width="${w}" height="${h}"/>`);
      }
    }
    const others = [];
    for (const [a, b] of lt) {
      const pa = pos(a, R, C),
        pb = pos(b, R, C);
      const sign = relation(pa, pb);
      if (!sign) {
        others.push(`${cellName(pa)} < ${cellName(pb)}`);
        continue;
      }
      const first = sign.first === "a" ? pa : pb;
      const [x, y] = at(first[0], first[1], first[2]);
      const [sx, sy] =
        sign.dir === "h" ? [x + cell + gap / 2, y + cell / 2] : [x + cell / 2, y + cell + gap / 2];
      out.push(`<text class="sign" x="${sx}" y="${sy}" font-size="${font}">${sign.text}</text>`);
    }
    const width = pad * 2 + L * w + (L - 1) * between,
      height = pad * 2 + label + h;
    const notes = others.length ? [`also: ${others.join(", ")}`] : [];
    if (p.groups && p.groups.length)
      notes.push(`${p.groups.length} instance group(s) (boxes) besides the lines`);
    const note = notes.length ? `<p class="note">${notes.join("; ")}</p>` : "";
    return (
      `<svg class="board" data-board="${name}" width="${width}" height="${height}" ` +
      `viewBox="0 0 ${width} ${height}">${out.join("")}</svg>${note}`
    );
  }

  function pos(i, R, C) {
    return [Math.floor(i / (R * C)), Math.floor(i / C) % R, i % C];
  }

  function cellName([l, r, c]) {
    return (l ? `l${l + 1}` : "") + `r${r + 1}c${c + 1}`;
  }

  /** The sign drawn for "a < b" between neighbours (null when they are not neighbours):
   * `first` is the left or upper cell. */
  function relation(pa, pb) {
    if (pa[0] !== pb[0]) return null;
    if (pa[1] === pb[1] && Math.abs(pa[2] - pb[2]) === 1) {
      return pa[2] < pb[2]
        ? { dir: "h", first: "a", text: "&lt;" }
        : { dir: "h", first: "b", text: "&gt;" };
    }
    if (pa[2] === pb[2] && Math.abs(pa[1] - pb[1]) === 1) {
      return pa[1] < pb[1]
        ? { dir: "v", first: "a", text: "∧" }
        : { dir: "v", first: "b", text: "∨" };
    }
    return null;
  }

  return { draw, values };
})();
