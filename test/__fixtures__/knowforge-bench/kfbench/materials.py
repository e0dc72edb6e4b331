"""Fixture in the layout of the runner's materials module (our own strings and code): the weak-match
note and the pool's block f-strings, each with the fields the importer places."""
import re

RELEVANCE_GATE = 2.0


class MaterialBuilder:
    """Writes fixture blocks; the importer reads the f-strings and header literals only."""

    def __init__(self):
        self.citations, self.images, self.blocks = {}, {}, []

    @staticmethod
    def _page_tag(where):
        m = re.search(r"pg(\d+)", where or "")
        return f"{{pg {m.group(1)}}}" if m else ""

    def add_plain(self, text, ids=None):
        self.blocks.append(text)
        return text

    def _emit_image(self, where, note):
        n = f"pic#{len(self.images) + 1}"
        self.images[n] = (where, note)
        return n

    def _emit_media(self, kind, where, caption):
        n = self._emit_image(where, kind)
        return (n, caption or "[fixture no caption]") if n else None

    def add_search(self, found):
        lines = []
        for hit in found["text_hits"]:
            cid = len(self.citations) + 1
            self.citations[cid] = hit
            label, text = hit["heading"], hit["body"]
            tag = " [fixture graph]" if hit.get("from_graph") else ""
            block = [f"[fixture material {cid}] cite [{cid}] from <{label or 'unknown'}{tag}>: {text}"]
            for seg in hit["nearby"]:
                block.append(f"  - fixture neighbour: {seg}")
            for fig in hit["figures"]:
                emitted, cfid = self._emit_media("image", fig, fig), fig
                cfid_note = f" (fixture id {cfid})"
                block.append(f"  - fixture attached [{emitted[0]}]{self._page_tag(fig)}{cfid_note}; {emitted[1]}")
            lines.append("\n".join(block))
        hit_lines = []
        for item in found["media_hits"]:
            emitted, fid_note = self._emit_media("table", item, item), " (fixture id)"
            hit_lines.append(f"  - fixture figure [{emitted[0]}]{self._page_tag(item)}{fid_note}; {emitted[1]}")
        if hit_lines:
            lines.append("[fixture figures] captions are cut, "
                         "read the whole description first:\n" + "\n".join(hit_lines))
        ex_lines = [f"  - {e.get('text')}" for e in found["examples"]]
        if ex_lines:
            lines.append("[fixture examples]:\n" + "\n".join(ex_lines))
        self.blocks.append("\n\n".join(lines))
        return self.blocks[-1]


def search_mat(builder, data):
    top = max(data["scores"] or [0.0])
    block = builder.add_search(data)
    if not block:
        return "[fixture no new materials]"
    return ("[fixture weak match note]\n" if top < RELEVANCE_GATE else "") + block


def fragment_mat(builder, data):
    parts = [("-> " if f.get("anchor") else "   ") + str(f.get("text")) for f in data["context"]]
    block = "[fixture fragment context] the arrow marks the hit, cite the old [N]:\n" + "\n".join(parts)
    builder.blocks.append(block)
    return block


def read_media_mat(builder, data):
    lines = []
    for r in data["answers"]:
        if r.get("error"):
            lines.append(f"  - fixture unreadable {r.get('fragment_id')}: {r['error']}")
            continue
        tag = builder._emit_image(r.get("path"), r.get("kind"))
        lines.append(f"  - fixture seen [{tag}] <{r.get('kind')}> {str(r.get('answer'))}")
    if data.get("skipped"):
        lines.append(f"  - fixture over the cap: {'; '.join(data['skipped'])}")
    if not lines:
        return "[fixture nothing was read]"
    block = ("[fixture media read] trust the look, "
             "cite the bracketed name:\n" + "\n".join(lines))
    builder.blocks.append(block)
    return block


def list_media_mat(builder, data):
    err = data.get("error")
    if err:
        return f"[fixture list_media miss: {err}]"
    head = (f"[fixture media of {data['book']}] pics={data['total_images']} tabs={data['total_tables']}"
            + (f" [fixture page {data['page']}]" if data.get("page") else ""))
    head += (f" [fixture first {data['shown']} only]" if data.get("truncated") else "") + " ::"
    lines = [head]
    for it in data["items"]:
        bd = "[edge] " if it.get("boundary") else ""
        k = "PIC" if it["kind"] == "image" else "TAB"
        pg = "" if it["page"] is None else f"pg{it['page']} "
        lines.append(f"* {pg}{bd}{k} {it['fragment_id']} = {it['desc']}")
    lines.append("[fixture media hint] open one with read_media, "
                 "count the rest with one read_media call")
    return builder.add_plain("\n".join(lines), [x.get("fragment_id") for x in data["items"]])


def list_tables_mat(builder, data):
    tables = data["tables"]
    if not tables:
        return "[fixture no tables here]"
    return "[fixture tables you can query]\n" + "\n".join(
        f"* {t.get('name')} #{t.get('table_id')} rows={t.get('row_count')} cols={','.join(t.get('columns'))}" for t in tables)


def query_table_mat(builder, data):
    item, tbl_lines = data["item"], []
    for tr in data["results"]:
        more = ""
        tbl_lines.append(f"  [fixture rows of {tr.get('name')} for {item}: {tr.get('matched')}{more}]")
        for cells in tr["rows"]:
            tbl_lines.append("    > " + " ; ".join(f"{k}={v}" for k, v in cells))
    block = ("[fixture exact rows]\n" + "\n".join(tbl_lines)) if tbl_lines else ""
    return block or "[fixture no matching row]"


def get_table_mat(builder, data):
    rows = data["rows"]
    more = f" [fixture {data.get('row_count', len(rows)) - len(rows)} hidden]" if data.get("truncated") else ""
    lines = [f"[fixture table {data.get('name')} with {data.get('row_count')} rows{more}]"]
    for cells in data["rows"]:
        lines.append("  > " + " ; ".join(f"{k}={v}" for k, v in cells))
    out = "\n".join(lines)
    return builder.add_plain(out)


def find_figure_mat(builder, data):
    err = data.get("error")
    if err:
        return f"[fixture find_figure miss: {err}]"
    lab = data["label"]
    # a label the text never prints: one note, then stop
    if not data.get("pages"):
        return builder.add_plain(f"[fixture {data['book']} never prints {lab}]"
                                 f" [fixture browse with list_media or search the topic]")
    lines = [f"[fixture where {lab} sits in {data['book']}]"]
    # one line per caption found
    for c in data.get("captions") or []:
        lines.append(f"  caption pg{c['page']} | {c['line']}")
    if data.get("media"):
        lines.append(f"[fixture media of those pages, one is {lab}]")
        for it in data["media"]:
            k = "PIC" if it["kind"] == "image" else "TAB"
            lines.append(f"  > pg{it['page']} {k} {it['fragment_id']} = {it['desc'] or '[fixture no caption]'}")
    return builder.add_plain("\n".join(lines))


def media_context_mat(builder, data):
    err = data.get("error")
    if err:
        return f"[fixture media_context refused: {err}]"
    k = "PIC" if data["kind"] == "image" else "TAB"
    lines = [f"[fixture around {k} {data['fragment_id']} pg{data['page']}]", f"  whole {k} text: {data['desc'] or '[fixture no caption]'}"]
    if data.get("captions"):
        lines.append("  titles here: " + " / ".join(data["captions"]))
    if data.get("page_text"):
        lines.append(f"  page body: {data['page_text']}")
    if data.get("siblings"):
        lines.append("  also here: " + " ; ".join(f"{'PIC' if s['kind'] == 'image' else 'TAB'} {s['fragment_id']} = {s['desc']}" for s in data.get("siblings")))
    lines.append("[fixture values need read_media first]")
    return builder.add_plain("\n".join(lines), [data.get("fragment_id")])


def list_books_mat(builder, data):
    books = data.get("books") or []
    total = int(data.get("total", 0))
    if not total:
        return "[fixture the library is empty]"
    if not books:
        return f"[fixture {total} books, none titled like {data.get('keyword')}]"
    head = f"[fixture library of {total}"
    if data.get("keyword"):
        head += f", {data['keyword']} matches {data.get('matched')}"
    if data.get("truncated"):
        head += f", first {len(books)} shown"
    lines = [head + "]"]
    # each book: its name, then its one-line summary when it has one
    for b in books:
        one = " ".join(b["one_line"].split())
        lines.append(f"  * {b['name']}" + (f" -- {one}" if one else ""))
    listing = "\n".join(lines)
    return builder.add_plain(listing)


def book_toc_mat(builder, data):
    import json
    err = data.get("error")
    if err:
        return json.dumps({"error": {"recoverable": True, "code": err, "hint": "[fixture no such book, see list_books]"}})
    secs = (data.get("toc") or {}).get("sections") or []
    lines = [f"[fixture contents of {data.get('book')}: {len(secs)} headings]"]
    for s in secs:
        lines.append(". " * max(0, int(s.get("level")) - 1) + "+ " + str(s.get("title")))
    return builder.add_plain("\n".join(lines))
