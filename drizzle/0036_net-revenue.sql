CREATE TABLE "revenue_daily" (
	"day" date NOT NULL,
	"currency" text NOT NULL,
	"orders" integer DEFAULT 0 NOT NULL,
	"gross_cents" bigint DEFAULT 0 NOT NULL,
	"net_cents" bigint DEFAULT 0 NOT NULL,
	"tax_cents" bigint DEFAULT 0 NOT NULL,
	"refunds" integer DEFAULT 0 NOT NULL,
	"refund_cents" bigint DEFAULT 0 NOT NULL,
	"refund_net_cents" bigint DEFAULT 0 NOT NULL,
	"refund_tax_cents" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "revenue_daily_day_currency_pk" PRIMARY KEY("day","currency")
);
--> statement-breakpoint
CREATE INDEX "invoices_issued_at_idx" ON "invoices" USING btree ("issued_at");--> statement-breakpoint
-- revenue_daily follows every write of a paid order or a confirmed refund, in the writing transaction
-- (docs/decisions/039): a row's old share is taken back and its new share added, so an order paid, a refund
-- confirmed, a correction by hand or a deletion all leave the day's sums equal to the rows. Only a change of
-- the columns summed can change them; an UPDATE that sets them to what they were does nothing.
CREATE FUNCTION "revenue_daily_add"("at" timestamptz, "cur" text, "paid" integer, "gross" bigint, "net" bigint,
  "tax" bigint, "refunded" integer, "refund" bigint, "refund_net" bigint, "refund_tax" bigint)
RETURNS void LANGUAGE sql AS $$
  INSERT INTO "revenue_daily" AS d ("day", "currency", "orders", "gross_cents", "net_cents", "tax_cents",
    "refunds", "refund_cents", "refund_net_cents", "refund_tax_cents")
  VALUES (("at" AT TIME ZONE 'UTC')::date, "cur", "paid", "gross", "net", "tax", "refunded", "refund",
    "refund_net", "refund_tax")
  ON CONFLICT ("day", "currency") DO UPDATE SET
    "orders" = d."orders" + excluded."orders",
    "gross_cents" = d."gross_cents" + excluded."gross_cents",
    "net_cents" = d."net_cents" + excluded."net_cents",
    "tax_cents" = d."tax_cents" + excluded."tax_cents",
    "refunds" = d."refunds" + excluded."refunds",
    "refund_cents" = d."refund_cents" + excluded."refund_cents",
    "refund_net_cents" = d."refund_net_cents" + excluded."refund_net_cents",
    "refund_tax_cents" = d."refund_tax_cents" + excluded."refund_tax_cents"
$$;--> statement-breakpoint
CREATE FUNCTION "orders_maintain_revenue_daily"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND (OLD."paid_at", OLD."currency", OLD."total_cents", OLD."net_cents", OLD."tax_cents")
      IS NOT DISTINCT FROM (NEW."paid_at", NEW."currency", NEW."total_cents", NEW."net_cents", NEW."tax_cents") THEN
    RETURN NULL;
  END IF;
  -- paid_at is set exactly when an order was paid (orders_paid_at_check), refunded ones included.
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD."paid_at" IS NOT NULL THEN
    PERFORM "revenue_daily_add"(OLD."paid_at", OLD."currency", -1, -OLD."total_cents", -OLD."net_cents",
      -OLD."tax_cents", 0, 0, 0, 0);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW."paid_at" IS NOT NULL THEN
    PERFORM "revenue_daily_add"(NEW."paid_at", NEW."currency", 1, NEW."total_cents", NEW."net_cents",
      NEW."tax_cents", 0, 0, 0, 0);
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "orders_maintain_revenue_daily"
AFTER INSERT OR DELETE OR UPDATE OF "paid_at", "currency", "total_cents", "net_cents", "tax_cents" ON "orders"
FOR EACH ROW
EXECUTE FUNCTION "orders_maintain_revenue_daily"();--> statement-breakpoint
CREATE FUNCTION "order_refunds_maintain_revenue_daily"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND (OLD."confirmed_at", OLD."currency", OLD."amount_cents", OLD."net_cents", OLD."tax_cents")
      IS NOT DISTINCT FROM (NEW."confirmed_at", NEW."currency", NEW."amount_cents", NEW."net_cents", NEW."tax_cents") THEN
    RETURN NULL;
  END IF;
  -- confirmed_at is set exactly when a refund is confirmed (order_refunds_confirmed_check).
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD."confirmed_at" IS NOT NULL THEN
    PERFORM "revenue_daily_add"(OLD."confirmed_at", OLD."currency", 0, 0, 0, 0, -1, -OLD."amount_cents",
      -OLD."net_cents", -OLD."tax_cents");
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW."confirmed_at" IS NOT NULL THEN
    PERFORM "revenue_daily_add"(NEW."confirmed_at", NEW."currency", 0, 0, 0, 0, 1, NEW."amount_cents",
      NEW."net_cents", NEW."tax_cents");
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "order_refunds_maintain_revenue_daily"
AFTER INSERT OR DELETE OR UPDATE OF "confirmed_at", "currency", "amount_cents", "net_cents", "tax_cents"
ON "order_refunds"
FOR EACH ROW
EXECUTE FUNCTION "order_refunds_maintain_revenue_daily"();--> statement-breakpoint
-- The orders paid and refunds confirmed before this migration.
INSERT INTO "revenue_daily" ("day", "currency", "orders", "gross_cents", "net_cents", "tax_cents", "refunds",
  "refund_cents", "refund_net_cents", "refund_tax_cents")
SELECT "day", "currency", sum("orders"), sum("gross"), sum("net"), sum("tax"), sum("refunds"), sum("refund"),
  sum("refund_net"), sum("refund_tax")
FROM (
  SELECT ("paid_at" AT TIME ZONE 'UTC')::date AS "day", "currency", 1 AS "orders", "total_cents" AS "gross",
    "net_cents" AS "net", "tax_cents" AS "tax", 0 AS "refunds", 0 AS "refund", 0 AS "refund_net", 0 AS "refund_tax"
  FROM "orders" WHERE "paid_at" IS NOT NULL
  UNION ALL
  SELECT ("confirmed_at" AT TIME ZONE 'UTC')::date, "currency", 0, 0, 0, 0, 1, "amount_cents", "net_cents",
    "tax_cents"
  FROM "order_refunds" WHERE "confirmed_at" IS NOT NULL
) AS "money"
GROUP BY "day", "currency";
