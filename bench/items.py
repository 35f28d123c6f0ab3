"""News-sized items for the benchmarks, as JSON lines for `radar items import`.

    python3 bench/items.py N [--recent] > items.jsonl

N items over a year (with --recent: over the 13 days before now, so that every one is
grouped into stories as it arrives; stories look at the last 14 days): a 10-word title, a 45-word summary, a 15-word short text and 150 to
250 words of content drawn from a Zipf-like vocabulary, so the search index does the work
real news gives it. Seeded: every run writes the same items.
"""
import json, sys, datetime, random, itertools
n = int(sys.argv[1])
recent = "--recent" in sys.argv[2:]
rng = random.Random(7)
span = 13 * 86_400 if recent else 31_536_000
now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
start = now - datetime.timedelta(seconds=span) if recent else datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
base = ("model agents inference chips training data safety open weights research policy "
        "startup funding regulation benchmark robotics vision language reasoning compute "
        "cloud energy privacy copyright lawsuit release launch partnership hiring layoffs "
        "chatbot assistant search coding enterprise healthcare finance education").split()
vocab = base + [f"term{i}" for i in range(5000)]
# Cumulative weights, summed once: random.choices sums plain weights again on every call.
cum_weights = list(itertools.accumulate(1.0 / (rank + 1) for rank in range(len(vocab))))
def words(k):
    return " ".join(rng.choices(vocab, cum_weights=cum_weights, k=k))
for i in range(n):
    t = start + datetime.timedelta(seconds=i * span // max(n, 1))
    paragraphs = [words(rng.randint(40, 70)) for _ in range(rng.randint(3, 4))]
    content = " ".join(" ".join(paragraphs).split()[: rng.randint(150, 250)])
    print(json.dumps({
        "id": f"b{i:07d}",
        "title": f"Story {i}: {words(9)}",
        "summary": words(45) + ".",
        "short": words(15) + ".",
        "content": content + ".",
        "url": f"https://news{i % 500}.example.com/story/{i}",
        "published_date": t.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }))
