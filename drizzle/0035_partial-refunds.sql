ALTER TABLE "order_refunds" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
CREATE UNIQUE INDEX "order_refunds_idempotency_unique" ON "order_refunds" USING btree ("order_id","idempotency_key") WHERE "order_refunds"."idempotency_key" is not null;--> statement-breakpoint
-- Partial refunds (issue 31): a line's book leaves the library once its refunds have given back its whole gross,
-- while the order stays paid; the order's remaining books leave when it becomes refunded (the trigger of 0007,
-- gift-aware since 0030). One function takes books back for both, so the rule is written once: the books of
-- `p_order` (all of them when `p_books` is null) leave whoever holds them through it, except a book that reader
-- also has through another paid order (their own purchase or a gift they claimed), which stays theirs through
-- that order. A line of such an order that its own refunds gave back in full is no longer a purchase that stands.
CREATE FUNCTION "revoke_order_books"("p_order" uuid, "p_books" uuid[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "library_items" AS "item"
  SET "order_id" = "keep"."order_id", "acquired_at" = "keep"."paid_at"
  FROM (
    SELECT DISTINCT ON ("other"."grantee", "line"."book_id")
      "other"."grantee", "line"."book_id", "other"."id" AS "order_id", "other"."paid_at"
    FROM (
      SELECT "o"."id", "o"."paid_at", "o"."number",
        CASE WHEN "g"."id" IS NULL THEN "o"."user_id" ELSE "g"."claimed_by" END AS "grantee"
      FROM "orders" AS "o"
      LEFT JOIN "gifts" AS "g" ON "g"."order_id" = "o"."id"
      WHERE "o"."status" = 'paid' AND "o"."id" <> "p_order"
    ) AS "other"
    JOIN "order_items" AS "line" ON "line"."order_id" = "other"."id"
    WHERE "other"."grantee" IN (SELECT "user_id" FROM "library_items" WHERE "order_id" = "p_order")
      AND ("p_books" IS NULL OR "line"."book_id" = ANY ("p_books"))
      AND NOT ("line"."gross_cents" > 0 AND "line"."gross_cents" <= (
        SELECT coalesce(sum(("part"->>'grossCents')::integer), 0)
        FROM "order_refunds" AS "refund", jsonb_array_elements("refund"."lines") AS "part"
        WHERE "refund"."order_id" = "other"."id" AND "refund"."status" = 'confirmed'
          AND "part"->>'bookId' = "line"."book_id"::text))
    ORDER BY "other"."grantee", "line"."book_id", "other"."paid_at", "other"."number"
  ) AS "keep"
  WHERE "item"."order_id" = "p_order" AND "item"."user_id" = "keep"."grantee" AND "item"."book_id" = "keep"."book_id";
  DELETE FROM "library_items" WHERE "order_id" = "p_order" AND ("p_books" IS NULL OR "book_id" = ANY ("p_books"));
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "orders_refund_revokes_ownership"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "revoke_order_books"(NEW."id", NULL);
  RETURN NULL;
END
$$;
