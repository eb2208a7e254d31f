# SAT branch, per shard: normalize -> encode -> solve (every solver: answers decoded and verified
# in the same pass) -> gather (per set). Every rule is a thin shell over `satdoku pipeline STAGE`
# (satdoku/pipeline/); every log holds the command's output and the error that ended it.
# Every shell placeholder is quoted ({x:q}): set paths, option values and names reach the
# command as single words, never as shell code (input functions: common.smk).


# The set's path is a parameter, not an input: the planned checksum (sha256) reruns the job when
# the file changes, and a file deleted during the run is the job's one-line error naming it
# (as an input, Snakemake would wait for it as for filesystem latency and name no cause).
rule normalize:
    output:
        path.INSTANCES,
    log:
        f"{path.LOGS}/normalize/{{set}}/{{shard}}.log",
    conda:
        "../envs/satdoku.yaml"
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        path=set_path,
        shard_size=set_shard_size,
        fmt=set_format,
        strict=strict_flag,
        sha256=set_sha256,
        size_limits=SIZE_LIMITS_JSON,
    shell:
        "satdoku pipeline normalize --shard {wildcards.shard:q} "
        "--shard-size {params.shard_size:q} --format {params.fmt:q} {params.strict:q} "
        "--sha256 {params.sha256:q} --size-limits {params.size_limits:q} "
        "-- {params.path:q} {output:q} > {log:q} 2>&1"


rule encode:
    input:
        path.INSTANCES,
    output:
        path.SATINPUT,
    log:
        f"{path.LOGS}/encode/{{encoding}}/{{set}}/{{shard}}.log",
    priority: 1  # on the way to the solvers: before the propagation analysis no solve waits for
    conda:
        "../envs/satdoku.yaml"
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        size_limits=SIZE_LIMITS_JSON,
    shell:
        "satdoku pipeline encode {input:q} {output:q} --set {wildcards.set:q} "
        "--encoding {wildcards.encoding:q} --size-limits {params.size_limits:q} > {log:q} 2>&1"


rule solve_cnf:
    input:
        instances=path.INSTANCES,
        bundle=path.SATINPUT,
    output:
        out=path.SATOUTPUT,
        times=path.TIMES_SHARD,
        sols=path.SOLS_SHARD,
    log:
        f"{path.LOGS}/solve/{{solver}}/{{encoding}}/{{set}}/{{shard}}.log",
    wildcard_constraints:
        solver=_alternatives(SAT_SOLVERS),
    priority: 2  # before the CNF sizes and reports that are ready at the same time
    conda:
        "../envs/satdoku.yaml"
    threads: 1
    resources:
        solver_slots=1,
        mem_mb=solve_mem_mb,
        runtime=sat_solve_runtime,
    params:
        version=solver_version,
        variant=solver_variant,
        time_limit=set_time_limit,
        memory_limit=solve_memory_limit,
        limit_clock=solve_limit_clock,
        verify_time_limit=set_verify_time_limit,
        measurement=solve_measurement,
        repeats=REPEATS,
    shell:
        "satdoku pipeline solve {input.instances:q} --bundle {input.bundle:q} "
        "--solver {wildcards.solver:q} --encoding {wildcards.encoding:q} "
        "--variants {params.variant:q} --time-limit {params.time_limit:q} "
        "--memory-limit {params.memory_limit:q} --limit-clock {params.limit_clock:q} "
        "--verify-time-limit {params.verify_time_limit:q} --repeats {params.repeats:q} "
        "--measurement {params.measurement:q} --cores {threads:q} "
        "--output {output.out:q} --times {output.times:q} --sols {output.sols:q} "
        "> {log:q} 2>&1"


rule solve_puzzle:
    input:
        path.INSTANCES,
    output:
        times=path.TIMES_SHARD,
        sols=path.SOLS_SHARD,
    log:
        f"{path.LOGS}/solve/{{solver}}/{{encoding}}/{{set}}/{{shard}}.log",
    wildcard_constraints:
        solver=_alternatives(PUZZLE_SOLVERS),
        encoding=stage.DIRECT,
    priority: 2
    conda:
        "../envs/satdoku.yaml"
    threads: 1
    resources:
        solver_slots=1,
        mem_mb=solve_mem_mb,
        runtime=solve_runtime,
    params:
        version=solver_version,
        variant=solver_variant,
        time_limit=set_time_limit,
        repeats=REPEATS,
        memory_limit=solve_memory_limit,
        limit_clock=solve_limit_clock,
        measurement=solve_measurement,
    shell:
        "satdoku pipeline solve {input:q} --solver {wildcards.solver:q} "
        "--encoding {wildcards.encoding:q} --variants {params.variant:q} "
        "--time-limit {params.time_limit:q} --repeats {params.repeats:q} "
        "--memory-limit {params.memory_limit:q} --limit-clock {params.limit_clock:q} "
        "--measurement {params.measurement:q} --cores {threads:q} "
        "--times {output.times:q} --sols {output.sols:q} > {log:q} 2>&1"


rule gather_sols:
    input:
        sols_shards,
    output:
        tsv=path.SOLS,
        txt=path.SOLS_TEXT,
    log:
        f"{path.LOGS}/gather_sols/{{solver}}/{{encoding}}/{{set}}.log",
    conda:
        "../envs/satdoku.yaml"
    shell:
        "satdoku pipeline gather {input:q} --kind sols --tsv {output.tsv:q} "
        "--txt {output.txt:q} > {log:q} 2>&1"


rule gather_times:
    input:
        times_shards,
    output:
        path.TIMES,
    log:
        f"{path.LOGS}/gather_times/{{solver}}/{{encoding}}/{{set}}.log",
    conda:
        "../envs/satdoku.yaml"
    shell:
        "satdoku pipeline gather {input:q} --kind times --tsv {output:q} > {log:q} 2>&1"


rule unique:
    input:
        fill(path.SATINPUT, encoding="extended"),
    output:
        path.UNIQUE_SHARD,
    log:
        f"{path.LOGS}/unique/{{set}}/{{shard}}.log",
    conda:
        "../envs/satdoku.yaml"
    threads: 1
    resources:
        solver_slots=1,
        mem_mb=SOLVE_MEM_MB,
        runtime=unique_runtime,
    params:
        time_limit=set_time_limit,
    shell:
        "satdoku pipeline unique {input:q} {output:q} --time-limit {params.time_limit:q} "
        "> {log:q} 2>&1"


rule gather_unique:
    input:
        unique_shards,
    output:
        path.UNIQUE,
    log:
        f"{path.LOGS}/gather_unique/{{set}}.log",
    conda:
        "../envs/satdoku.yaml"
    shell:
        "satdoku pipeline gather {input:q} --kind unique --tsv {output:q} > {log:q} 2>&1"
