"""Fixture in the layout of the runner's loop module (our own strings): only the lines the importer reads."""
import json


async def run_loop(*, registry, llm_fn, system, task, max_rounds=8, feedback_suffix=""):
    messages = [{"role": "system", "content": system}, {"role": "user", "content": task}]
    for rnd in range(1, max_rounds + 1):
        result_text = json.dumps({"fixture": rnd})
        left = max_rounds - rnd
        suffix = f"\n\n[fixture budget note: {left} round(s) left]" if left <= 2 else ""
        messages.append({"role": "user",
                         "content": f"[fixture result]\n{result_text}{feedback_suffix}{suffix}"})
    return messages
