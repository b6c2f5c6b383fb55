-- ==== invoices: immutable (issue 31, docs/decisions/037) — copy this whole file as one block ====
-- An invoice or credit note is never changed or removed once issued, whoever asks: the store's code, a script
-- or SQL by hand. A mistake is corrected by a credit note. TRUNCATE is refused too (row triggers do not see it).
-- Deleting documents past their legal retention period is an operator's deliberate act, as the table's owner:
--   BEGIN; ALTER TABLE "invoices" DISABLE TRIGGER "invoices_immutable"; DELETE …; ALTER TABLE "invoices"
--   ENABLE TRIGGER "invoices_immutable"; COMMIT;
-- pg_restore --clean drops and recreates the table, which no trigger refuses; the triggers come back after the data.
CREATE FUNCTION "invoices_refuse_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_LEVEL = 'ROW' THEN
    RAISE EXCEPTION 'invoice % is immutable: % refused', OLD."number", TG_OP
      USING ERRCODE = 'restrict_violation', HINT = 'Issue a credit note to correct an invoice.';
  END IF;
  RAISE EXCEPTION 'invoices are immutable: % refused', TG_OP
    USING ERRCODE = 'restrict_violation', HINT = 'Issue a credit note to correct an invoice.';
END
$$;--> statement-breakpoint
CREATE TRIGGER "invoices_immutable"
BEFORE UPDATE OR DELETE ON "invoices"
FOR EACH ROW
EXECUTE FUNCTION "invoices_refuse_change"();--> statement-breakpoint
CREATE TRIGGER "invoices_no_truncate"
BEFORE TRUNCATE ON "invoices"
FOR EACH STATEMENT
EXECUTE FUNCTION "invoices_refuse_change"();
-- ==== end of invoices: immutable ====

