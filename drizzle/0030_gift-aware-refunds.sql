-- A refund takes back the books its order granted (migration 0007), now knowing gifts (issue 30): a gift's
-- order grants its books to whoever claimed it, not to its buyer. A book a reader also has through another paid
-- order stays theirs through that order: their own purchase, or a gift they claimed. A gift order is never the
-- buyer's other order, and an unclaimed gift grants nobody.
CREATE OR REPLACE FUNCTION "orders_refund_revokes_ownership"() RETURNS trigger LANGUAGE plpgsql AS $$
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
      WHERE "o"."status" = 'paid' AND "o"."id" <> NEW."id"
    ) AS "other"
    JOIN "order_items" AS "line" ON "line"."order_id" = "other"."id"
    WHERE "other"."grantee" IN (SELECT "user_id" FROM "library_items" WHERE "order_id" = NEW."id")
    ORDER BY "other"."grantee", "line"."book_id", "other"."paid_at", "other"."number"
  ) AS "keep"
  WHERE "item"."order_id" = NEW."id" AND "item"."user_id" = "keep"."grantee" AND "item"."book_id" = "keep"."book_id";
  DELETE FROM "library_items" WHERE "order_id" = NEW."id";
  RETURN NULL;
END
$$;
