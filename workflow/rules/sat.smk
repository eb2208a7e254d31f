# SAT branch, per shard: normalize -> encode -> solve (every solver: answers decoded and verified
# in the same pass) -> gather (per set). Every rule is a thin shell over `satdoku pipeline STAGE`
# (satdoku/pipeline/); every log holds the command's output and the error that ended it.


rule normalize:
    input:
        lambda w: SETS[w.set]["path"],
    output:
        INSTANCES,
    log:
        f"{LOGS}/normalize/{{set}}/{{shard}}.log",
    conda:
        "../envs/satdoku.yaml"
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        shard=lambda w: int(w.shard),
        shard_size=lambda w: SHARD_SIZES[w.set],
        fmt=lambda w: SETS[w.set].get("format", "auto"),
        strict=lambda w: (
            "--strict" if SETS[w.set].get("strict", config["strict"]) else ""
        ),
        sha256=lambda w: PLANS[w.set].sha256,
        limits=json.dumps(config["limits"], sort_keys=True),
    shell:
        "satdoku pipeline normalize {input} {output} --shard {params.shard} "
        "--shard-size {params.shard_size} --format {params.fmt} {params.strict} "
        "--sha256 {params.sha256} --limits '{params.limits}' > {log} 2>&1"


rule encode:
    input:
        INSTANCES,
    output:
        SATINPUT,
    log:
        f"{LOGS}/encode/{{encoding}}/{{set}}/{{shard}}.log",
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
        instances=INSTANCES,
        bundle=SATINPUT,
    output:
        out=SATOUTPUT,
        times=TIMES_SHARD,
        sols=SOLS_SHARD,
    log:
        f"{LOGS}/solve/{{solver}}/{{encoding}}/{{set}}/{{shard}}.log",
    wildcard_constraints:
        solver=_alternatives(SAT_SOLVERS),
    conda:
        "../envs/satdoku.yaml"
    threads: 1
    resources:
        solver_slots=1,
        mem_mb=4000,
        runtime=lambda w: 60 + int(set_time_limit(w.set) * SHARD_SIZES[w.set] / 60),
    params:
        version=lambda w: solver_version(w.solver),
        variant=lambda w: solver_variant(w.solver),
        time_limit=lambda w: set_time_limit(w.set),
    shell:
        "satdoku pipeline solve {input.instances} --bundle {input.bundle} "
        "--solver {wildcards.solver} --encoding {wildcards.encoding} "
        "--variants '{params.variant}' --time-limit {params.time_limit} "
        "--output {output.out} --times {output.times} --sols {output.sols} > {log} 2>&1"


rule solve_puzzle:
    input:
        INSTANCES,
    output:
        times=TIMES_SHARD,
        sols=SOLS_SHARD,
    log:
        f"{LOGS}/solve/{{solver}}/{{encoding}}/{{set}}/{{shard}}.log",
    wildcard_constraints:
        solver=_alternatives(PUZZLE_SOLVERS),
        encoding=stage.DIRECT,
    conda:
        "../envs/satdoku.yaml"
    threads: 1
    resources:
        solver_slots=1,
        mem_mb=4000,
        runtime=lambda w: 60 + int(set_time_limit(w.set) * SHARD_SIZES[w.set] / 60),
    params:
        version=lambda w: solver_version(w.solver),
        variant=lambda w: solver_variant(w.solver),
        time_limit=lambda w: set_time_limit(w.set),
    shell:
        "satdoku pipeline solve {input} --solver {wildcards.solver} "
        "--encoding {wildcards.encoding} --variants '{params.variant}' "
        "--time-limit {params.time_limit} --times {output.times} --sols {output.sols} "
        "> {log} 2>&1"


rule gather_sols:
    input:
        lambda w: expand(
            SOLS_SHARD,
            set=w.set,
            solver=w.solver,
            encoding=w.encoding,
            shard=SHARDS[w.set],
        ),
    output:
        tsv=SOLS,
        txt=SOLS_TEXT,
    log:
        f"{LOGS}/gather_sols/{{solver}}/{{encoding}}/{{set}}.log",
    conda:
        "../envs/satdoku.yaml"
    shell:
        "satdoku pipeline gather {input} --kind sols --tsv {output.tsv} --txt {output.txt} "
        "> {log} 2>&1"


rule gather_times:
    input:
        lambda w: expand(
            TIMES_SHARD,
            set=w.set,
            solver=w.solver,
            encoding=w.encoding,
            shard=SHARDS[w.set],
        ),
    output:
        TIMES,
    log:
        f"{LOGS}/gather_times/{{solver}}/{{encoding}}/{{set}}.log",
    conda:
        "../envs/satdoku.yaml"
    shell:
        "satdoku pipeline gather {input} --kind times --tsv {output} > {log} 2>&1"


rule unique:
    input:
        SATINPUT.format(encoding="extended", set="{set}", shard="{shard}"),
    output:
        UNIQUE_SHARD,
    log:
        f"{LOGS}/unique/{{set}}/{{shard}}.log",
    conda:
        "../envs/satdoku.yaml"
    threads: 1
    resources:
        solver_slots=1,
        mem_mb=4000,
        runtime=lambda w: 60 + int(2 * set_time_limit(w.set) * SHARD_SIZES[w.set] / 60),
    params:
        time_limit=lambda w: set_time_limit(w.set),
    shell:
        "satdoku pipeline unique {input} {output} --time-limit {params.time_limit} "
        "> {log} 2>&1"


rule gather_unique:
    input:
        lambda w: expand(UNIQUE_SHARD, set=w.set, shard=SHARDS[w.set]),
    output:
        UNIQUE,
    log:
        f"{LOGS}/gather_unique/{{set}}.log",
    conda:
        "../envs/satdoku.yaml"
    shell:
        "satdoku pipeline gather {input} --kind unique --tsv {output} > {log} 2>&1"
