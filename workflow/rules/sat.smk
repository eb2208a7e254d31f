# SAT branch: normalize -> encode -> solve{solver} -> decode + verify -> gather (per set).
# Every rule is a thin shell over `satdoku pipeline STAGE` (satdoku/pipeline/).


rule normalize:
    input:
        lambda w: SETS[w.set]["path"],
    output:
        "results/Instances/{set}/{shard}.jsonl",
    log:
        "results/logs/normalize/{set}/{shard}.log",
    conda:
        "../envs/satdoku.yaml"
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        shard=lambda w: int(w.shard),
        shard_size=SHARD_SIZE,
        fmt=lambda w: SETS[w.set].get("format", "auto"),
        strict=lambda w: (
            "--strict" if SETS[w.set].get("strict", config.get("strict")) else ""
        ),
    shell:
        "satdoku pipeline normalize {input} {output} --shard {params.shard} "
        "--shard-size {params.shard_size} --format {params.fmt} {params.strict} > {log} 2>&1"


rule encode:
    input:
        "results/Instances/{set}/{shard}.jsonl",
    output:
        "results/SatInput/{encoding}/{set}/{shard}.cnfs",
    log:
        "results/logs/encode/{encoding}/{set}/{shard}.log",
    conda:
        "../envs/satdoku.yaml"
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        "satdoku pipeline encode {input} {output} --set {wildcards.set} "
        "--encoding {wildcards.encoding} > {log} 2>&1"


rule solve_cnf:
    input:
        "results/SatInput/{encoding}/{set}/{shard}.cnfs",
    output:
        out="results/SatOutput/{solver}/{encoding}/{set}/{shard}.out",
        times="results/SatOutputTimes/{solver}/{encoding}/{set}/shards/{shard}.tsv",
    log:
        "results/logs/solve/{solver}/{encoding}/{set}/{shard}.log",
    wildcard_constraints:
        solver=_alternatives(SAT_SOLVERS),
    conda:
        "../envs/satdoku.yaml"
    threads: 1
    resources:
        solver_slots=1,
        mem_mb=4000,
        runtime=lambda w: 60 + int(TIME_LIMIT * SHARD_SIZE / 60),
    params:
        version=lambda w: solver_version(w.solver),
        variant=lambda w: solver_variant(w.solver),
        time_limit=lambda w: float(SETS[w.set].get("time_limit", TIME_LIMIT)),
    shell:
        "satdoku pipeline solve {input} --solver {wildcards.solver} --variants '{params.variant}' "
        "--time-limit {params.time_limit} --output {output.out} --times {output.times} "
        "> {log} 2>&1"


rule solve_puzzle:
    input:
        "results/Instances/{set}/{shard}.jsonl",
    output:
        sols="results/SatSols/{solver}/direct/{set}/shards/{shard}.tsv",
        times="results/SatOutputTimes/{solver}/direct/{set}/shards/{shard}.tsv",
    log:
        "results/logs/solve/{solver}/direct/{set}/{shard}.log",
    wildcard_constraints:
        solver=_alternatives(PUZZLE_SOLVERS),
    conda:
        "../envs/satdoku.yaml"
    threads: 1
    resources:
        solver_slots=1,
        mem_mb=4000,
        runtime=lambda w: 60 + int(TIME_LIMIT * SHARD_SIZE / 60),
    params:
        version=lambda w: solver_version(w.solver),
        variant=lambda w: solver_variant(w.solver),
        time_limit=lambda w: float(SETS[w.set].get("time_limit", TIME_LIMIT)),
    shell:
        "satdoku pipeline solve {input} --solver {wildcards.solver} --variants '{params.variant}' "
        "--time-limit {params.time_limit} --sols {output.sols} --times {output.times} "
        "> {log} 2>&1"


rule decode:
    input:
        instances="results/Instances/{set}/{shard}.jsonl",
        out="results/SatOutput/{solver}/{encoding}/{set}/{shard}.out",
    output:
        "results/SatSols/{solver}/{encoding}/{set}/shards/{shard}.tsv",
    log:
        "results/logs/decode/{solver}/{encoding}/{set}/{shard}.log",
    wildcard_constraints:
        solver=_alternatives(SAT_SOLVERS),
    conda:
        "../envs/satdoku.yaml"
    resources:
        mem_mb=2000,
        runtime=30,
    shell:
        "satdoku pipeline decode {input.instances} {input.out} {output} "
        "--encoding {wildcards.encoding} > {log} 2>&1"


rule gather_sols:
    input:
        lambda w: expand(
            "results/SatSols/{{solver}}/{{encoding}}/{{set}}/shards/{shard}.tsv",
            shard=SHARDS[w.set],
        ),
    output:
        tsv="results/SatSols/{solver}/{encoding}/{set}.tsv",
        txt="results/SatSols/{solver}/{encoding}/{set}.txt",
    log:
        "results/logs/gather_sols/{solver}/{encoding}/{set}.log",
    conda:
        "../envs/satdoku.yaml"
    shell:
        "satdoku pipeline gather {input} --kind sols --tsv {output.tsv} --txt {output.txt} "
        "> {log} 2>&1"


rule gather_times:
    input:
        lambda w: expand(
            "results/SatOutputTimes/{{solver}}/{{encoding}}/{{set}}/shards/{shard}.tsv",
            shard=SHARDS[w.set],
        ),
    output:
        "results/SatOutputTimes/{solver}/{encoding}/{set}.tsv",
    log:
        "results/logs/gather_times/{solver}/{encoding}/{set}.log",
    conda:
        "../envs/satdoku.yaml"
    shell:
        "satdoku pipeline gather {input} --kind times --tsv {output} > {log} 2>&1"


rule unique:
    input:
        "results/SatInput/extended/{set}/{shard}.cnfs",
    output:
        "results/Reports/unique/{set}/shards/{shard}.tsv",
    params:
        time_limit=TIME_LIMIT,
    log:
        "results/logs/unique/{set}/{shard}.log",
    conda:
        "../envs/satdoku.yaml"
    threads: 1
    resources:
        solver_slots=1,
        mem_mb=4000,
        runtime=lambda w: 60 + int(2 * TIME_LIMIT * SHARD_SIZE / 60),
    shell:
        "satdoku pipeline unique {input} {output} --time-limit {params.time_limit} "
        "> {log} 2>&1"


rule gather_unique:
    input:
        lambda w: expand(
            "results/Reports/unique/{{set}}/shards/{shard}.tsv", shard=SHARDS[w.set]
        ),
    output:
        "results/Reports/{set}_unique.tsv",
    log:
        "results/logs/gather_unique/{set}.log",
    conda:
        "../envs/satdoku.yaml"
    shell:
        "satdoku pipeline gather {input} --kind unique --tsv {output} > {log} 2>&1"
