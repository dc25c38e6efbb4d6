# Sourced by the scenario-wide shell tests (schema_test.sh, loaded_determinism_test.sh):
# overrides_for NAME prints the --set options that keep a long shipped scenario to a few seconds
# of wall time while keeping its event kinds.
overrides_for() {
  case $1 in
    backup_release) echo "--set duration_ms=60000 --set backup.start_ms=20000 --set workload.think_us=10000" ;;
    replica_set) echo "--set duration_ms=30000 --set backup.start_ms=10000 --set backup.copy_mb_per_s=20 --set workload.think_us=10000 --set backup.hot_docs=2000 --set backup.warm_docs=2000 --set backup.cold_docs=2000 --set backup.append_docs=2000" ;;
    padding_upserts) echo "--set workload.total_documents=1000 --set duration_ms=600000" ;;
    ttl_vs_manual_delete) echo "--set duration_ms=400000 --set workload.think_us=1000000 --set workload.batch_size=100" ;;
    ttl_late_index) echo "--set duration_ms=400000 --set workload.think_us=1000000 --set workload.batch_size=100 --set workload.stop_inserts_at_ms=200000 --set ttl.index_at_ms=200000" ;;
    locking_bulk_insert) echo "--set workload.total_documents=5000 --set workload.keys=5000" ;;
    *) echo "" ;;
  esac
}
