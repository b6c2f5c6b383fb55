-- A book's copies sold (books.sales_count: its lines in paid orders) follow every write, in the writing
-- transaction, so that the catalogue's best-selling sort never aggregates orders (docs/decisions/019): an
-- order becoming paid adds its lines, an order leaving 'paid' (a refund, by refundOrder(), the Stripe webhook
-- or an UPDATE by hand) takes them back; a line added to or removed from a paid order counts too.
CREATE FUNCTION "orders_maintain_book_sales"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta integer := 0;
BEGIN
  IF TG_OP = 'UPDATE' THEN
    delta := (NEW."status" = 'paid')::int - (OLD."status" = 'paid')::int;
  ELSIF OLD."status" = 'paid' THEN
    -- Before the order's lines are deleted with it (their own trigger no longer sees a paid order).
    delta := -1;
  END IF;
  IF delta <> 0 THEN
    UPDATE "books" SET "sales_count" = "sales_count" + delta
    WHERE "id" IN (SELECT "book_id" FROM "order_items" WHERE "order_id" = OLD."id");
  END IF;
  RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END
$$;--> statement-breakpoint
CREATE TRIGGER "orders_maintain_book_sales_update"
AFTER UPDATE OF "status" ON "orders"
FOR EACH ROW
EXECUTE FUNCTION "orders_maintain_book_sales"();--> statement-breakpoint
CREATE TRIGGER "orders_maintain_book_sales_delete"
BEFORE DELETE ON "orders"
FOR EACH ROW
EXECUTE FUNCTION "orders_maintain_book_sales"();--> statement-breakpoint
CREATE FUNCTION "order_items_maintain_book_sales"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' AND EXISTS (SELECT 1 FROM "orders" WHERE "id" = NEW."order_id" AND "status" = 'paid') THEN
    UPDATE "books" SET "sales_count" = "sales_count" + 1 WHERE "id" = NEW."book_id";
  ELSIF TG_OP = 'DELETE' AND EXISTS (SELECT 1 FROM "orders" WHERE "id" = OLD."order_id" AND "status" = 'paid') THEN
    UPDATE "books" SET "sales_count" = "sales_count" - 1 WHERE "id" = OLD."book_id";
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "order_items_maintain_book_sales"
AFTER INSERT OR DELETE ON "order_items"
FOR EACH ROW
EXECUTE FUNCTION "order_items_maintain_book_sales"();--> statement-breakpoint
-- The sales made before this migration.
UPDATE "books" SET "sales_count" = sold."count"
FROM (
  SELECT oi."book_id", count(*)::int AS "count"
  FROM "order_items" oi JOIN "orders" o ON o."id" = oi."order_id"
  WHERE o."status" = 'paid'
  GROUP BY oi."book_id"
) AS sold
WHERE "books"."id" = sold."book_id";
