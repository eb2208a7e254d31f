# The run's record (satdoku/runs/): once every set's stage files are gathered, one job writes
# the run manifest (results/run.json: versions, machine, configuration hash, solvers, start and
# end), adds the run to the store (results/runs/<run id>.parquet, an archive: each run adds a
# file and none is replaced, so it is not a Snakemake output) and writes
# reports/instances_wide.csv. The summary and the explorer read run.json (declared inputs).
from satdoku.runs.provenance import mark_start


onstart:
    mark_start(stage.RESULTS)  # the run's start time (a dry run does not start a run)


rule run_record:
    input:
        all_set_results,
    output:
        manifest=path.RUN_MANIFEST,
        wide=path.INSTANCES_WIDE,
    log:
        f"{path.LOGS}/report/run_record.log",
    localrule: True
    conda:
        "../envs/satdoku.yaml"
    params:
        config=config_json,
        results=run_results_dir,
    shell:
        "satdoku pipeline record {input:q} --config {params.config:q} "
        "--results {params.results:q} --manifest {output.manifest:q} "
        "--wide {output.wide:q} > {log:q} 2>&1"
