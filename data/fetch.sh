#!/usr/bin/env bash
# Download public benchmarks in their official formats into data/bench/<name>/.
# Needs internet (github.com, huggingface.co). Untested in the offline workplace the
# harness was built in; every URL below is the benchmark's public home.
#   bash data/fetch.sh mmlongbench|text-multihop|mmqa|multihop-rag|all
set -euo pipefail
cd "$(dirname "$0")"
out=bench
mkdir -p "$out"
get() { mkdir -p "$(dirname "$2")"; echo "fetch $1"; curl -fL --retry 3 -o "$2" "$1"; }

mmlongbench() {
  # Questions (1,082) + 135 PDFs: github.com/mayubo2333/MMLongBench-Doc, huggingface.co/datasets/yubo2333/MMLongBench-Doc
  get https://raw.githubusercontent.com/mayubo2333/MMLongBench-Doc/main/data/samples.json "$out/mmlongbench-doc/samples.json"
  echo "PDFs: git clone https://huggingface.co/datasets/yubo2333/MMLongBench-Doc $out/mmlongbench-doc/hf (documents/ folder)"
}
text_multihop() {
  # HippoRAG's 2Wiki / MuSiQue / HotpotQA subsets (corpus + questions)
  for f in 2wikimultihopqa musique hotpotqa; do
    get "https://raw.githubusercontent.com/OSU-NLP-Group/HippoRAG/main/reproduce/dataset/${f}.json" "$out/text-multihop/${f}.json"
    get "https://raw.githubusercontent.com/OSU-NLP-Group/HippoRAG/main/reproduce/dataset/${f}_corpus.json" "$out/text-multihop/${f}_corpus.json"
  done
}
mmqa() {
  # MultiModalQA: github.com/allenai/multimodalqa (dataset/ folder)
  for f in MMQA_dev.jsonl.gz MMQA_texts.jsonl.gz MMQA_tables.jsonl.gz MMQA_images.jsonl.gz; do
    get "https://github.com/allenai/multimodalqa/raw/master/dataset/$f" "$out/mmqa/$f"
  done
  echo "Images: https://multimodalqa-images.s3-us-west-2.amazonaws.com/final_dataset_images/final_dataset_images.zip"
}
multihop_rag() {
  # MultiHop-RAG: github.com/yixuantt/MultiHop-RAG (dataset/ folder)
  get https://raw.githubusercontent.com/yixuantt/MultiHop-RAG/main/dataset/corpus.json "$out/multihop-rag/corpus.json"
  get https://raw.githubusercontent.com/yixuantt/MultiHop-RAG/main/dataset/MultiHopRAG.json "$out/multihop-rag/MultiHopRAG.json"
}
case "${1:-}" in
  mmlongbench) mmlongbench ;;
  text-multihop) text_multihop ;;
  mmqa) mmqa ;;
  multihop-rag) multihop_rag ;;
  all) mmlongbench; text_multihop; mmqa; multihop_rag ;;
  *) echo "usage: bash data/fetch.sh mmlongbench|text-multihop|mmqa|multihop-rag|all"; exit 2 ;;
esac
echo "done: files under data/$out/ (not committed). M3DocVQA PDFs are built from Wikipedia with github.com/bloomberg/m3docrag."
