"""Trains the fast tier's code delta: potion-base-8M's token vectors moved
so that a doc sentence lands near the code it documents (in-batch
contrastive loss, both directions, over mean-pooled normalised token
vectors exactly as model2vec pools them), then writes the changed rows as
int8 (`src/embed/code_delta.rs` reads the format).

    python3 scripts/code-delta/train.py --pairs PAIRS.jsonl --model DIR/potion-base-8M \
        --delta src/embed/code_delta.bin [--out DIR]   # --out: a whole model dir, for labs

Needs torch, numpy, safetensors and tokenizers (a venv of its own).
"""
import json, random, shutil, struct, sys, os, time, argparse
import numpy as np, torch, torch.nn.functional as F
from tokenizers import Tokenizer
from safetensors.numpy import load_file, save_file

ap = argparse.ArgumentParser()
ap.add_argument("--pairs", required=True)
ap.add_argument("--model", required=True)
ap.add_argument("--delta")
ap.add_argument("--out")
ap.add_argument("--rank", type=int, default=0)  # 0: full delta (a low rank did worse)
ap.add_argument("--epochs", type=float, default=10.0)
ap.add_argument("--lr", type=float, default=1e-2)
ap.add_argument("--batch", type=int, default=512)
ap.add_argument("--tau", type=float, default=0.05)
ap.add_argument("--l2", type=float, default=0.0)
ap.add_argument("--cap", type=int, default=40000)
ap.add_argument("--doctok", type=int, default=256)
ap.add_argument("--aug", type=float, default=0.5)
# Question pairs written the way agents ask (not doc sentences): N of them,
# distinct, join every batch.
ap.add_argument("--extra")
ap.add_argument("--extra-per-batch", type=int, default=24)
args = ap.parse_args()
torch.manual_seed(0); random.seed(0)
torch.set_num_threads(2)

MD = args.model
tok = Tokenizer.from_file(f"{MD}/tokenizer.json")
tok.no_truncation(); tok.no_padding()
E0 = torch.from_numpy(load_file(f"{MD}/model.safetensors")["embeddings"].copy())
V, D = E0.shape
UNK = tok.token_to_id("[UNK]")

rows = [json.loads(l) for l in open(args.pairs)]
by = {}
for r in rows:
    by.setdefault(r["src"], []).append(r)
data = []
for s, rs in by.items():
    random.shuffle(rs)
    data += rs[: args.cap]
random.shuffle(data)
val = data[:2000]; train = data[2000:]
print("train", len(train), "val", len(val), file=sys.stderr)

def enc(texts, maxlen):
    out = []
    for e in tok.encode_batch(texts, add_special_tokens=False):
        ids = [i for i in e.ids if i != UNK][:maxlen]
        out.append(ids if ids else [UNK])
    return out

t0 = time.time()
PRE = ["how does", "where is", "where does", "how is", "what handles", "the code that", "which function", "how do we", "where are", "find the code that", "how does it", "what is responsible for", "where do we"]
def aug(q):
    if random.random() >= args.aug:
        return q
    q = q.rstrip(".")
    q = q[0].lower() + q[1:]
    return random.choice(PRE) + " " + q
TQ = enc([aug(r["q"]) for r in train], 64); TD = enc([r["d"][:6000] for r in train], args.doctok)
VQ = enc([r["q"] for r in val], 64); VD = enc([r["d"][:6000] for r in val], args.doctok)
XQ = XD = []
if args.extra:
    xr = [json.loads(l) for l in open(args.extra)]
    XQ = enc([r["q"] for r in xr], 64); XD = enc([r["d"][:6000] for r in xr], args.doctok)
    print("extra", len(XQ), file=sys.stderr)
print("tokenized", time.time() - t0, file=sys.stderr)

if args.rank:
    A = torch.zeros(V, args.rank, requires_grad=True)
    B = torch.nn.Parameter(torch.randn(args.rank, D) * 0.01)
    params = [A, B]
    def table():
        return E0 + A @ B
else:
    Dl = torch.zeros(V, D, requires_grad=True)
    params = [Dl]
    def table():
        return E0 + Dl

def bag(seqs):
    flat = torch.tensor([i for s in seqs for i in s], dtype=torch.long)
    offs = torch.tensor(np.cumsum([0] + [len(s) for s in seqs[:-1]]), dtype=torch.long)
    return flat, offs

def embed(T, seqs):
    flat, offs = bag(seqs)
    v = F.embedding_bag(flat, T, offs, mode="mean")
    return F.normalize(v, dim=-1)

def evaluate():
    with torch.no_grad():
        T = table()
        q = embed(T, VQ); d = embed(T, VD)
        s = q @ d.T
        r1 = (s.argmax(1) == torch.arange(len(VQ))).float().mean().item()
        ranks = (s > s.diag()[:, None]).sum(1).float()
        mrr = (1 / (ranks + 1)).mean().item()
    return r1, mrr

print("before", evaluate(), file=sys.stderr)
opt = torch.optim.Adam(params, lr=args.lr)
steps = int(len(train) / args.batch * args.epochs)
for step in range(steps):
    i = (step * args.batch) % (len(train) - args.batch)
    bq = TQ[i:i + args.batch]; bd = TD[i:i + args.batch]
    if XQ:
        pick = random.sample(range(len(XQ)), min(args.extra_per_batch, len(XQ)))
        bq = bq + [XQ[j] for j in pick]; bd = bd + [XD[j] for j in pick]
    T = table()
    q = embed(T, bq); d = embed(T, bd)
    logits = q @ d.T / args.tau
    lab = torch.arange(len(bq))
    loss = (F.cross_entropy(logits, lab) + F.cross_entropy(logits.T, lab)) / 2
    if args.l2:
        loss = loss + args.l2 * sum((p ** 2).sum() for p in params)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 50 == 0:
        print(step, steps, round(loss.item(), 4), evaluate(), round(time.time() - t0), file=sys.stderr)
print("after", evaluate(), file=sys.stderr)

with torch.no_grad():
    delta = (table() - E0).numpy().astype(np.float32)
base = E0.numpy()
if args.delta:
    # Format (little-endian): b"RSCD", u32 version 1, u32 rows, u32 dim,
    # u32 check row, dim f32 (that row of the base table: which model the
    # delta is for), u32 n, then n × (u32 token id, f32 scale, dim i8);
    # a row's new value is base + i8 × scale, computed in f32.
    CHECK = 1000
    ids = [i for i in range(V) if np.abs(delta[i]).max() > 0]
    with open(args.delta, "wb") as f:
        f.write(b"RSCD" + struct.pack("<IIII", 1, V, D, CHECK))
        f.write(base[CHECK].astype("<f4").tobytes())
        f.write(struct.pack("<I", len(ids)))
        for i in ids:
            scale = float(np.abs(delta[i]).max()) / 127.0
            q = np.clip(np.round(delta[i] / scale), -127, 127).astype(np.int8)
            f.write(struct.pack("<If", i, scale) + q.tobytes())
    print("delta rows", len(ids), "bytes", os.path.getsize(args.delta), file=sys.stderr)
if args.out:
    os.makedirs(args.out, exist_ok=True)
    for f in os.listdir(MD):
        if f != "model.safetensors":
            shutil.copy2(os.path.join(MD, f), args.out)
    save_file({"embeddings": base + delta}, f"{args.out}/model.safetensors")
    print("saved", args.out, file=sys.stderr)
