// Runs in the document's page in Chromium, not in the Worker: print-layout.ts imports this
// file as text (wrangler.toml [[rules]], type "Text") and evaluates it called with the sheet
// height in CSS px, the most sheets a render may make and whether sections are paginated.
// It lays the document out in sheets and answers JSON `{texts}` (each sheet's text, in
// order) or `{over: true}` past `max` sheets. Paginated (doc, docs): each `{{ page }}`
// section is cut into sheets, moving the top-level blocks that overflow a sheet onto a new
// one; a single block taller than a sheet is shrunk (CSS zoom, down to a tenth) to fit.
// Not paginated (pres): a section is a slide (overflow clipped).
// oxlint-disable-next-line no-unused-expressions -- the file is one function expression, evaluated as text in Chromium
(sheetHeight, max, paginate) => {
  const sel = 'main.document > section.page';
  let count = document.querySelectorAll(sel).length;
  if (count > max) return JSON.stringify({ over: true });
  for (const first of paginate ? Array.from(document.querySelectorAll(sel)) : []) {
    for (let s = first; s;) {
      const cs = getComputedStyle(s);
      const padTop = parseFloat(cs.paddingTop) + parseFloat(cs.borderTopWidth);
      const budget = sheetHeight - padTop - parseFloat(cs.paddingBottom) - parseFloat(cs.borderBottomWidth);
      const top = s.getBoundingClientRect().top + padTop;
      const kids = Array.from(s.children);
      let cut = -1;
      for (let i = 0; i < kids.length && cut < 0; i++) {
        const bottom = kids[i].getBoundingClientRect().bottom - top;
        if (bottom <= budget + 0.5) continue;
        if (i > 0) cut = i;
        else kids[i].style.zoom = String(Math.max(0.1, (budget - 1) / bottom));
      }
      if (cut < 0) break;
      if (++count > max) return JSON.stringify({ over: true });
      const next = document.createElement('section');
      next.className = 'page';
      next.append(...kids.slice(cut));
      s.after(next);
      s = next;
    }
  }
  return JSON.stringify({ texts: Array.from(document.querySelectorAll(sel)).map((s) => s.innerText) });
};
