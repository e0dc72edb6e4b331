"""Fixture written by the harness team in the layout of the runner's prompt module (our own strings)."""

# ---- shared loop protocol ----
LOOP_RULES = """[fixture loop rules] Work in rounds and stop when the evidence suffices.
- Search first for anything factual."""

LOOP_FEEDBACK_SUFFIX = ('\n\n[fixture general suffix: finish with {"thought": "...", "final": "ok"} '
                        "once the materials suffice]")
FINAL_EXAMPLE = '{"thought": "...", "final": "ok"}'

# ---- Locator ----
LOC_RULES = """
[fixture locator rules] Find the passage that holds the answer; do not read deeply."""
LOC_RULES_V43 = LOC_RULES.rstrip() + "\n" + """- [fixture locator addition] Count questions use list_media.
"""
LOC_SUFFIX = ('\n\n[fixture locator suffix: stop once the answer passage is found] '
              "[no deep reading here]")

# ---- Deep Reader ----
DEEP_RULES = """
[fixture reader rules] Read the materials you were handed in depth."""
DEEP_RULES_V43 = DEEP_RULES.rstrip() + "\n" + """- [fixture reader addition] Pass up to 40 ids to read_media.
"""
TASK_FEEDBACK_SUFFIX_V2 = LOOP_FEEDBACK_SUFFIX + (
    "\n[fixture budget rule: rounds are a budget, "
    "read or finish]")

# ---- P0 ----
TASK_RULES_V2 = """
[fixture p0 rules] Locate first, then read."""
P0_RULES_V43 = TASK_RULES_V2.rstrip() + "\n" + """- [fixture p0 addition] Tables via query_table.
"""

# ---- benchmark rule paragraphs ----
M3D_RULE = "\n- [fixture m3d rule] every question has an answer."
MHR_RULE = ("\n- [fixture mhr rule] some questions lack evidence; "
            "compare \"Published\" dates.")

# ---- guardrails ----
GUARDRAIL_MMLB = ("\n\n[fixture mmlb guardrail] End with 'FINAL ANSWER: <answer>'.")
GUARDRAIL_M3D = ("\n\n[fixture m3d guardrail] End with 'FINAL ANSWER: <answer>'; "
                 "never refuse.")
GUARDRAIL_MHR = ("\n\n[fixture mhr guardrail] End with 'FINAL ANSWER: <answer>' "
                 "or 'Insufficient information'.")
GUARDRAILS = {"mmlb": GUARDRAIL_MMLB, "m3d": GUARDRAIL_M3D, "mhr": GUARDRAIL_MHR}

# ---- bridge judge ----
BRIDGE_SYSTEM = """[fixture judge system] Decide whether a second hop is missing.
Reply with a JSON object holding need_more, bridge_entities, queries and a short reason."""

# ---- synthesizer ----
SYNTH_SYSTEM = """[fixture synth system] Answer from the materials, cite [N]."""

# ---- format checkers ----
FINAL_CHECK_MMLB = """[fixture checker mmlb] Rewrite only the FINAL ANSWER value. Output JSON only: {"final": "<value>"}."""
FINAL_CHECK_M3D = """[fixture checker m3d] Rewrite only the FINAL ANSWER value. Output JSON only: {"final": "<value>"}."""
FINAL_CHECK_MHR = """[fixture checker mhr] Rewrite only the FINAL ANSWER value. Output JSON only: {"final": "<value>"}."""
FINAL_CHECKERS = {"mhr": FINAL_CHECK_MHR, "mmlb": FINAL_CHECK_MMLB, "m3d": FINAL_CHECK_M3D}

# ---- read_media ----
READ_PROMPT = """[fixture read prompt] Look at this one image only.
Question: {question}
Last line: Answer: <short answer>"""

FINAL_GUARD_TEXT = ("[fixture guard] search before answering.")
