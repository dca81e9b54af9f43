"""Moving one run between stores: ``export_run`` reads a run back as plain, picklable rows and ``import_run`` writes
such rows into another store with new ids, in one transaction. `compare --executor ray` uses them: a Ray worker refines
into a private store and the driver imports the run into the real one. A mixin of ``citefix.store.Store``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .tables import inserted_pk, table

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from sqlite_utils.db import Database

    from .rows import CallRow, RoundRow


class RunTransfer:
    """export_run / import_run (mixed into Store, which provides db, write, rounds and calls)."""

    db: Database

    if TYPE_CHECKING:

        def write(self) -> AbstractContextManager[Database]: ...

        def rounds(self, run_id: int) -> list[RoundRow]: ...

        def calls(self, run_id: int) -> list[CallRow]: ...

    def export_run(self, run_id: int) -> dict[str, Any]:
        """One run as plain, picklable rows: its case, run row, rounds, units, verdicts, scores and calls (ids as
        stored here; import_run remaps them). A Ray worker refines into a private store and hands this back."""
        run = dict(table(self.db, "runs").get(run_id))
        case = dict(table(self.db, "cases").get(run["case_pk"]))
        rounds = [r.as_dict() for r in self.rounds(run_id)]
        ids = [r["id"] for r in rounds]
        marks = ",".join("?" * len(ids))

        def of_rounds(table: str) -> list[dict]:
            if not ids:
                return []
            return list(self.db.query(f"select * from {table} where round_id in ({marks}) order by id", ids))

        return {"case": case, "run": run, "rounds": rounds, "units": of_rounds("units"),
                "verdicts": of_rounds("verdicts"), "scores": of_rounds("scores"), "calls": [c.as_dict() for c in self.calls(run_id)]}

    def import_run(self, bundle: dict[str, Any]) -> int:
        """Write a run exported from another store (export_run) here, in one transaction, with new ids: the case is
        matched by content hash, every row keeps its values (status, stop reason, best round, settings with the
        compare signature, lineage) and points at its new run, round and unit rows. Returns the new run id."""
        case = bundle["case"]
        with self.write():
            row = next(table(self.db, "cases").rows_where("content_hash = ?", [case["content_hash"]], limit=1), None)
            if row is not None:
                case_pk = row["id"]
            else:
                case_pk = inserted_pk(table(self.db, "cases").insert({k: v for k, v in case.items() if k != "id"}))
            run_id = inserted_pk(table(self.db, "runs").insert(
                {**{k: v for k, v in bundle["run"].items() if k != "id"}, "case_pk": case_pk}))
            round_ids: dict[int, int] = {}
            for r in bundle["rounds"]:
                round_ids[r["id"]] = inserted_pk(table(self.db, "rounds").insert(
                    {**{k: v for k, v in r.items() if k != "id"}, "run_id": run_id}))
            unit_ids: dict[int, int] = {}
            for u in bundle["units"]:
                unit_ids[u["id"]] = inserted_pk(table(self.db, "units").insert(
                    {**{k: v for k, v in u.items() if k != "id"}, "round_id": round_ids[u["round_id"]]}))
            table(self.db, "verdicts").insert_all(
                {**{k: v for k, v in v.items() if k != "id"}, "round_id": round_ids[v["round_id"]],
                 "unit_row": unit_ids.get(v["unit_row"]) if v.get("unit_row") is not None else None}
                for v in bundle["verdicts"])
            table(self.db, "scores").insert_all(
                {**{k: v for k, v in s.items() if k != "id"}, "round_id": round_ids[s["round_id"]]}
                for s in bundle["scores"])
            table(self.db, "calls").insert_all(
                {**{k: v for k, v in c.items() if k != "id"}, "run_id": run_id,
                 "round_id": round_ids.get(c["round_id"]) if c.get("round_id") is not None else None}
                for c in bundle["calls"])
        return run_id

