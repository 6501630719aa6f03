"""Time the Probe clustering on a few thousand English words (MiniLM vectors).

Run: ``python bench/bench_probe.py [N_WORDS]`` (default 3000). Prints the seconds to
embed the words, to cluster them with the silhouette grid 2..60 (step 1, silhouette
sampled on 2,000 words, the default rule and k-means++ runs per k of
:class:`gasp.probe.ClusteringConfig`) and the k chosen.
"""

from __future__ import annotations

import sys
import time

from wordfreq import top_n_list

from gasp.embeddings import load_embeddings
from gasp.probe import ClusteringConfig, cluster_vectors


def main(n_words: int = 3000) -> None:
    """Embed and cluster ``n_words`` frequent English words; print the timings."""
    words = [w for w in top_n_list("en", 3 * n_words) if w.isalpha() and len(w) >= 3][:n_words]
    start = time.perf_counter()
    vectors, _ = load_embeddings("minilm").lookup(words)
    embed_s = time.perf_counter() - start
    start = time.perf_counter()
    clustering = cluster_vectors(vectors, ClusteringConfig(), rng=0)
    cluster_s = time.perf_counter() - start
    grid = len(clustering.curve)
    print(
        f"{len(words)} words: embed {embed_s:.1f} s; cluster + silhouette over {grid} k "
        f"{cluster_s:.1f} s; k = {clustering.k}"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3000)
