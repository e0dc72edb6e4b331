"""Fixture in the layout of the runner's materials module (our own strings)."""
RELEVANCE_GATE = 2.0


def search_mat(builder, data):
    top = top_score(data)
    block = builder.add_search(data)
    if not block:
        return "[fixture no new materials]"
    return ("[fixture weak match note]\n" if top < RELEVANCE_GATE else "") + block
