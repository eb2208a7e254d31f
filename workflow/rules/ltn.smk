# LTN branch: dataset -> train -> evaluate, one chain per board size (satdoku/ltn/).
# Settings: the `ltn:` section of config.yaml; `--config ltn_preset=original` (or ltn.preset)
# switches to a preset there, e.g. the original system's sizes and epochs.


include: "ltn_common.smk"


rule ltn_dataset:
    output:
        train="results/LTN/datasets/{size}/train.tsv",
        val="results/LTN/datasets/{size}/val.tsv",
        test="results/LTN/datasets/{size}/test.tsv",
        manifest="results/LTN/datasets/{size}/manifest.json",
    log:
        "results/logs/ltn/dataset_{size}.log",
    benchmark:
        "results/benchmarks/ltn/dataset_{size}.tsv"
    wildcard_constraints:
        size=r"\d+",
    conda:
        "../envs/satdoku.yaml"
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        per_kind=lambda w: ltn_value("per_kind", w.size),
        fractions=lambda w: " ".join(
            map(str, ltn_value("fractions", w.size, [0.8, 0.1, 0.1]))
        ),
        seed=lambda w: ltn_value("seed", w.size, 0),
        original=lambda w: (
            f"--original {LTN['original']}/{w.size}x{w.size} "
            f"--limit-per-file {ltn_value('per_kind', w.size)}"
            if LTN.get("original")
            else ""
        ),
    shell:
        "satdoku generate dataset --size {wildcards.size} --per-kind {params.per_kind} "
        "--fractions {params.fractions} --seed {params.seed} {params.original} "
        "--out results/LTN/datasets/{wildcards.size} > {log} 2>&1"


rule ltn_train:
    input:
        train="results/LTN/datasets/{size}/train.tsv",
        val="results/LTN/datasets/{size}/val.tsv",
    output:
        model="results/LTN/models/ltn_{size}.pt",
        tsv="results/LTN/models/ltn_{size}.tsv",
    log:
        "results/logs/ltn/train_{size}.log",
    benchmark:
        "results/benchmarks/ltn/train_{size}.tsv"
    wildcard_constraints:
        size=r"\d+",
    conda:
        "../envs/satdoku.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        epochs=lambda w: ltn_value("epochs", w.size, 20),
        lr=lambda w: ltn_value("lr", w.size, 0.003),
        seed=lambda w: ltn_value("seed", w.size, 0),
    shell:
        "satdoku train --size {wildcards.size} --epochs {params.epochs} --lr {params.lr} "
        "--seed {params.seed} --threads {threads} --data results/LTN/datasets/{wildcards.size} "
        "--out {output.model} --tsv {output.tsv} > {log} 2>&1"


rule ltn_evaluate:
    input:
        test="results/LTN/datasets/{size}/test.tsv",
        manifest="results/LTN/datasets/{size}/manifest.json",
        model="results/LTN/models/ltn_{size}.pt",
        tsv="results/LTN/models/ltn_{size}.tsv",
    output:
        md="results/Reports/ltn_{size}.md",
        json="results/Reports/ltn_{size}.json",
        memory="results/Reports/ltn_{size}_memory.json",
        curves="results/Reports/ltn_{size}_curves.png",
        confusion="results/Reports/ltn_{size}_q1_confusion.png",
        q2="results/Reports/ltn_{size}_q2_decisions.png",
    log:
        "results/logs/ltn/evaluate_{size}.log",
    benchmark:
        "results/benchmarks/ltn/evaluate_{size}.tsv"
    wildcard_constraints:
        size=r"\d+",
    conda:
        "../envs/satdoku.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=60,
    params:
        q2_limit=lambda w: ltn_value("q2_limit", w.size, 100),
        q1_extra=lambda w: ltn_value("q1_extra", w.size, 0),
        steps=lambda w: ltn_value("ltn_steps", w.size, 100),
        rounds=lambda w: ltn_value("ltn_rounds", w.size, 2),
        seed=lambda w: ltn_value("seed", w.size, 0),
    shell:
        "satdoku classify --evaluate results/LTN/datasets/{wildcards.size} "
        "--size {wildcards.size} --models results/LTN/models --epochs-tsv {input.tsv} "
        "--report results/Reports/ltn_{wildcards.size} --q2-limit {params.q2_limit} "
        "--q1-extra {params.q1_extra} "
        "--ltn-steps {params.steps} --ltn-rounds {params.rounds} --seed {params.seed} "
        "> {log} 2>&1"
