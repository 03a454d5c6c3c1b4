"""The ablation harness: protocol -> cell matrix -> arm controllers -> engine -> workspace
-> adjudicator -> hash-chained records. See README.md and ../shared/DESIGN.md."""
