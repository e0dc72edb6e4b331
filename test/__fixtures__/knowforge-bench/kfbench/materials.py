"""Fixture in the layout of the runner's materials module (our own strings): the weak-match note and the block formats."""
import re

RELEVANCE_GATE = 2.0


class MaterialBuilder:
    def __init__(self):
        self.citations = {}
        self.images = {}
        self.blocks = []

    @staticmethod
    def _page_tag(path):
        m = re.search(r"page_(\d+)_", path or "")
        return f"{{pg {m.group(1)}}}" if m else ""

    def _emit_image(self, path, caption):
        n = f"pic#{len(self.images) + 1}"
        self.images[n] = {"path": path, "caption": caption}
        return n

    def _emit_media(self, kind, path, ext, caption):
        n = self._emit_image(path, caption)
        return (n, caption or "[fixture no caption]") if n else None

    def add_search(self, data):
        lines = []
        for r in data.get("results") or []:
            cid = str(len(self.citations) + 1)
            label = (r.get("section_title") or r.get("source_file") or "").strip()
            tag = " [fixture graph]" if r.get("from_graph") else ""
            text = " ".join(str(r.get("text") or "").split())[:700]
            block = [f"[fixture material {cid}] cite [{cid}] from <{label or 'unknown'}{tag}>: {text}"]
            for c in r.get("context") or []:
                seg = " ".join(str(c.get("text") or "").split())
                if c.get("kind") == "text":
                    block.append(f"  - fixture neighbour: {seg}")
                else:
                    emitted = self._emit_media(c.get("kind"), c.get("path"), c.get("ext"), c.get("caption"))
                    cfid = str(c.get("fragment_id") or "")
                    cfid_note = f" (fixture id {cfid})" if cfid else ""
                    block.append(f"  - fixture attached [{emitted[0]}]{self._page_tag(c.get('path'))}{cfid_note}; {emitted[1]}")
            lines.append("\n".join(block))
        hit_lines = []
        for m in (data.get("images") or []) + (data.get("tables") or []):
            emitted = self._emit_media(m.get("kind"), m.get("path"), m.get("ext"), m.get("caption"))
            fid = str(m.get("fragment_id") or "")
            fid_note = f" (fixture id {fid})" if fid else ""
            hit_lines.append(f"  - fixture figure [{emitted[0]}]{self._page_tag(m.get('path') or '')}{fid_note}; {emitted[1]}")
        if hit_lines:
            lines.append("[fixture figures] captions are cut, "
                         "read the whole description first:\n" + "\n".join(hit_lines))
        ex_lines = [f"  - {' '.join(str(e.get('text') or '').split())[:300]}" for e in data.get("examples") or []]
        if ex_lines:
            lines.append("[fixture examples]:\n" + "\n".join(ex_lines))
        block_text = "\n\n".join(lines)
        self.blocks.append(block_text)
        return block_text


def top_score(data):
    return max([r.get("score", 0.0) for r in data.get("results") or []] or [0.0])


def search_mat(builder, data):
    top = top_score(data)
    block = builder.add_search(data)
    if not block:
        return "[fixture no new materials]"
    return ("[fixture weak match note]\n" if top < RELEVANCE_GATE else "") + block
