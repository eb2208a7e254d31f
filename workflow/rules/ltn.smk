# LTN branch: dataset -> train -> evaluate, one chain per board size (satdoku/ltn/).
# Settings: the `ltn:` section of the config (defaults in workflow/schemas/config.schema.yaml);
# `--config ltn_preset=original` (or ltn.preset) applies a preset, e.g. the original sizes.
# Settings and targets (LTN, ltn_value, ltn_targets): workflow/rules/common.smk.


rule ltn_dataset:
    output:
        train=f"{LTN_DIR}/datasets/{{size}}/train.tsv",
        val=f"{LTN_DIR}/datasets/{{size}}/val.tsv",
        test=f"{LTN_DIR}/datasets/{{size}}/test.tsv",
        manifest=f"{LTN_DIR}/datasets/{{size}}/manifest.json",
    log:
        f"{LOGS}/ltn/dataset_{{size}}.log",
    benchmark:
        results("benchmarks/ltn/dataset_{size}.tsv")
    wildcard_constraints:
        size=r"\d+",
    conda:
        "../envs/satdoku.yaml"
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        out_dir=lambda w, output: os.path.dirname(output.manifest),
        per_kind=lambda w: ltn_value("per_kind", w.size),
        fractions=" ".join(map(str, LTN.get("fractions", []))),
        seed=lambda w: ltn_value("seed", w.size),
        original=lambda w: (
            f"--original {LTN['original']}/{w.size}x{w.size} "
            f"--limit-per-file {ltn_value('per_kind', w.size)}"
            if LTN.get("original")
            else ""
        ),
    shell:
        "satdoku generate dataset --size {wildcards.size} --per-kind {params.per_kind} "
        "--fractions {params.fractions} --seed {params.seed} {params.original} "
        "--out {params.out_dir} > {log} 2>&1"


rule ltn_train:
    input:
        train=f"{LTN_DIR}/datasets/{{size}}/train.tsv",
        val=f"{LTN_DIR}/datasets/{{size}}/val.tsv",
    output:
        model=f"{LTN_DIR}/models/ltn_{{size}}.pt",
        tsv=f"{LTN_DIR}/models/ltn_{{size}}.tsv",
    log:
        f"{LOGS}/ltn/train_{{size}}.log",
    benchmark:
        results("benchmarks/ltn/train_{size}.tsv")
    wildcard_constraints:
        size=r"\d+",
    conda:
        "../envs/satdoku.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        data_dir=lambda w, input: os.path.dirname(input.train),
        epochs=lambda w: ltn_value("epochs", w.size),
        lr=lambda w: ltn_value("lr", w.size),
        seed=lambda w: ltn_value("seed", w.size),
    shell:
        "satdoku train --size {wildcards.size} --epochs {params.epochs} --lr {params.lr} "
        "--seed {params.seed} --threads {threads} --data {params.data_dir} "
        "--out {output.model} --tsv {output.tsv} > {log} 2>&1"


rule ltn_evaluate:
    input:
        test=f"{LTN_DIR}/datasets/{{size}}/test.tsv",
        manifest=f"{LTN_DIR}/datasets/{{size}}/manifest.json",
        model=f"{LTN_DIR}/models/ltn_{{size}}.pt",
        tsv=f"{LTN_DIR}/models/ltn_{{size}}.tsv",
    output:
        md=results("Reports/ltn_{size}.md"),
        json=results("Reports/ltn_{size}.json"),
        memory=results("Reports/ltn_{size}_memory.json"),
        curves=results("Reports/ltn_{size}_curves.png"),
        confusion=results("Reports/ltn_{size}_q1_confusion.png"),
        q2=results("Reports/ltn_{size}_q2_decisions.png"),
    log:
        f"{LOGS}/ltn/evaluate_{{size}}.log",
    benchmark:
        results("benchmarks/ltn/evaluate_{size}.tsv")
    wildcard_constraints:
        size=r"\d+",
    conda:
        "../envs/satdoku.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=60,
    params:
        data_dir=lambda w, input: os.path.dirname(input.test),
        models_dir=lambda w, input: os.path.dirname(input.model),
        prefix=lambda w, output: output.md[: -len(".md")],
        q2_limit=lambda w: ltn_value("q2_limit", w.size),
        q1_extra=lambda w: ltn_value("q1_extra", w.size),
        steps=lambda w: ltn_value("ltn_steps", w.size),
        rounds=lambda w: ltn_value("ltn_rounds", w.size),
        seed=lambda w: ltn_value("seed", w.size),
    shell:
        "satdoku classify --evaluate {params.data_dir} --size {wildcards.size} "
        "--models {params.models_dir} --epochs-tsv {input.tsv} --report {params.prefix} "
        "--q2-limit {params.q2_limit} --q1-extra {params.q1_extra} "
        "--ltn-steps {params.steps} --ltn-rounds {params.rounds} --seed {params.seed} "
        "> {log} 2>&1"
