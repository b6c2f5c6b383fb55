-- A refund takes back the books its order granted (docs/decisions/008). A trigger, so that marking an order
-- refunded by hand (UPDATE orders SET status = 'refunded' …) does it as surely as refundOrder() does, in the
-- same transaction. A book the buyer also has through another paid order (two Checkout Sessions paid for it,
-- decision 009) stays owned, through that order.
CREATE FUNCTION "orders_refund_revokes_ownership"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "library_items" AS "item"
  SET "order_id" = "keep"."order_id", "acquired_at" = "keep"."paid_at"
  FROM (
    SELECT DISTINCT ON ("line"."book_id") "line"."book_id", "other"."id" AS "order_id", "other"."paid_at"
    FROM "orders" AS "other"
    JOIN "order_items" AS "line" ON "line"."order_id" = "other"."id"
    WHERE "other"."user_id" = NEW."user_id" AND "other"."status" = 'paid' AND "other"."id" <> NEW."id"
    ORDER BY "line"."book_id", "other"."paid_at", "other"."number"
  ) AS "keep"
  WHERE "item"."order_id" = NEW."id" AND "item"."book_id" = "keep"."book_id";
  DELETE FROM "library_items" WHERE "order_id" = NEW."id";
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "orders_refund_revokes_ownership"
AFTER UPDATE OF "status" ON "orders"
FOR EACH ROW
WHEN (NEW."status" = 'refunded' AND OLD."status" <> 'refunded')
EXECUTE FUNCTION "orders_refund_revokes_ownership"();
