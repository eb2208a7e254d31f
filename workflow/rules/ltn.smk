# LTN branch: dataset -> train -> evaluate, one chain per board size (satdoku/ltn/).
# Settings: the `ltn:` section of the config (defaults in workflow/schemas/config.schema.yaml);
# `--config ltn_preset=original` (or ltn.preset) applies a preset, e.g. the original sizes.
# Settings, params functions and targets (LTN, ltn_value, ltn_param, ltn_clue17_args,
# ltn_targets): workflow/rules/ltn_helpers.smk.


rule ltn_dataset:
    output:
        train=path.LTN_TRAIN,
        val=path.LTN_VAL,
        test=path.LTN_TEST,
        manifest=path.LTN_MANIFEST,
    log:
        f"{path.LOGS}/ltn/dataset_{{size}}.log",
    benchmark:
        fill(path.LTN_BENCHMARK, step="dataset")
    wildcard_constraints:
        size=r"\d+",
    conda:
        "../envs/satdoku.yaml"
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        out_dir=ltn_dir(path.LTN_MANIFEST),
        per_kind=ltn_param("per_kind"),
        fractions=ltn_fractions(),
        seed=ltn_param("seed"),
        original=ltn_original,
    shell:
        "satdoku generate dataset --size {wildcards.size:q} "
        "--per-kind {params.per_kind:q} --fractions {params.fractions:q} "
        "--seed {params.seed:q} {params.original:q} --out {params.out_dir:q} "
        "> {log:q} 2>&1"


rule ltn_train:
    input:
        train=path.LTN_TRAIN,
        val=path.LTN_VAL,
    output:
        model=path.LTN_MODEL,
        tsv=path.LTN_EPOCHS,
    log:
        f"{path.LOGS}/ltn/train_{{size}}.log",
    benchmark:
        fill(path.LTN_BENCHMARK, step="train")
    wildcard_constraints:
        size=r"\d+",
    conda:
        "../envs/satdoku.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        data_dir=ltn_dir(path.LTN_MANIFEST),
        epochs=ltn_param("epochs"),
        lr=ltn_param("lr"),
        seed=ltn_param("seed"),
    shell:
        "satdoku train --size {wildcards.size:q} --epochs {params.epochs:q} "
        "--lr {params.lr:q} --seed {params.seed:q} --threads {threads:q} "
        "--data {params.data_dir:q} --out {output.model:q} --tsv {output.tsv:q} "
        "> {log:q} 2>&1"


rule ltn_evaluate:
    input:
        test=path.LTN_TEST,
        manifest=path.LTN_MANIFEST,
        model=path.LTN_MODEL,
        tsv=path.LTN_EPOCHS,
        clue17=ltn_clue17_file,
    output:
        md=fill(path.LTN_REPORT, ext="md"),
        json=fill(path.LTN_REPORT, ext="json"),
        memory=path.LTN_MEMORY,
        curves=fill(path.LTN_FIGURE, figure="curves"),
        confusion=fill(path.LTN_FIGURE, figure="q1_confusion"),
        q2=fill(path.LTN_FIGURE, figure="q2_decisions"),
    log:
        f"{path.LOGS}/ltn/evaluate_{{size}}.log",
    benchmark:
        fill(path.LTN_BENCHMARK, step="evaluate")
    wildcard_constraints:
        size=r"\d+",
    conda:
        "../envs/satdoku.yaml"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=60,
    params:
        data_dir=ltn_dir(path.LTN_MANIFEST),
        models_dir=ltn_dir(path.LTN_MODEL),
        prefix=report_prefix,
        q2_limit=ltn_param("q2_limit"),
        q1_extra=ltn_param("q1_extra"),
        q2_extra=ltn_param("q2_extra"),
        clue17=ltn_clue17_args,
        steps=ltn_param("ltn_steps"),
        rounds=ltn_param("ltn_rounds"),
        backtracks=ltn_param("ltn_backtracks"),
        seed=ltn_param("seed"),
    shell:
        "satdoku classify --evaluate {params.data_dir:q} --size {wildcards.size:q} "
        "--models {params.models_dir:q} --epochs-tsv {input.tsv:q} "
        "--report {params.prefix:q} --q2-limit {params.q2_limit:q} "
        "--q1-extra {params.q1_extra:q} --q2-extra {params.q2_extra:q} {params.clue17:q} "
        "--ltn-steps {params.steps:q} --ltn-rounds {params.rounds:q} "
        "--ltn-backtracks {params.backtracks:q} --seed {params.seed:q} > {log:q} 2>&1"
