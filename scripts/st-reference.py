#!/usr/bin/env python3
"""The Python reference for the in-process embedder: reads the JSONL that
`bench_embed --dump` writes (text + our vectors per tier), embeds the same
texts with sentence-transformers (PyTorch, CPU) and prints throughput and
the cosine between its vectors and ours.

    st-reference.py CHUNKS.jsonl MODEL_DIR [--batch 16]
"""
import argparse
import json
import time

import numpy as np
from sentence_transformers import SentenceTransformer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("chunks")
    ap.add_argument("model_dir")
    ap.add_argument("--batch", type=int, default=16)
    a = ap.parse_args()
    rows = [json.loads(l) for l in open(a.chunks)]
    texts = [r["text"] for r in rows]
    model = SentenceTransformer(a.model_dir, device="cpu")
    model.max_seq_length = 256
    model.encode(texts[:4], batch_size=a.batch)  # warm up
    t = time.perf_counter()
    ref = model.encode(texts, batch_size=a.batch, normalize_embeddings=True, convert_to_numpy=True)
    secs = time.perf_counter() - t
    tokens = sum(min(256, len(model.tokenizer(x)["input_ids"])) for x in texts)
    print(f"full sentence-transformers (PyTorch CPU)          {len(texts) / secs:8.1f} chunks/s, {tokens / secs:.0f} tokens/s ({tokens} tokens)")
    if "full" in rows[0]:
        ours = np.array([r["full"] for r in rows], dtype=np.float32)
        ours /= np.linalg.norm(ours, axis=1, keepdims=True)
        cos = (ours * ref).sum(axis=1)
        print(f"cosine(ours, sentence-transformers) over {len(texts)} chunks: min {cos.min():.7f} mean {cos.mean():.7f}")


if __name__ == "__main__":
    main()
