CREATE TABLE "order_refunds" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"order_id" uuid NOT NULL,
	"status" text DEFAULT 'requested' NOT NULL,
	"amount_cents" integer NOT NULL,
	"net_cents" integer NOT NULL,
	"tax_cents" integer NOT NULL,
	"currency" text NOT NULL,
	"lines" jsonb NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"provider_reference" text,
	"credit_note_id" uuid,
	"requested_by" text NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"confirmed_at" timestamp with time zone,
	CONSTRAINT "order_refunds_status_check" CHECK ("order_refunds"."status" in ('requested', 'confirmed', 'failed')),
	CONSTRAINT "order_refunds_amount_check" CHECK ("order_refunds"."amount_cents" > 0 and "order_refunds"."net_cents" >= 0 and "order_refunds"."tax_cents" >= 0 and "order_refunds"."net_cents" + "order_refunds"."tax_cents" = "order_refunds"."amount_cents"),
	CONSTRAINT "order_refunds_confirmed_check" CHECK (("order_refunds"."status" = 'confirmed') = ("order_refunds"."confirmed_at" is not null))
);
--> statement-breakpoint
ALTER TABLE "order_refunds" ADD CONSTRAINT "order_refunds_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "order_refunds_order_id_idx" ON "order_refunds" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "order_refunds_confirmed_at_idx" ON "order_refunds" USING btree ("confirmed_at") WHERE "order_refunds"."confirmed_at" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "order_refunds_provider_reference_unique" ON "order_refunds" USING btree ("provider_reference") WHERE "order_refunds"."provider_reference" is not null;--> statement-breakpoint
-- Refunds made before this table: whole orders, confirmed (refunded) or waiting on Stripe (requested).
INSERT INTO "order_refunds" ("order_id", "status", "amount_cents", "net_cents", "tax_cents", "currency", "lines", "reason", "provider_reference", "requested_by", "requested_at", "confirmed_at")
SELECT o."id",
  CASE WHEN o."status" = 'refunded' THEN 'confirmed' ELSE 'requested' END,
  o."total_cents", o."net_cents", o."tax_cents", o."currency",
  coalesce((SELECT jsonb_agg(jsonb_build_object('bookId', i."book_id", 'netCents', i."net_cents", 'taxCents', i."tax_cents", 'grossCents', i."gross_cents") ORDER BY i."book_id")
    FROM "order_items" i WHERE i."order_id" = o."id"), '[]'::jsonb),
  'whole order', o."refund_reference", 'migration',
  coalesce(o."refund_requested_at", o."refunded_at", o."updated_at"),
  CASE WHEN o."status" = 'refunded' THEN coalesce(o."refunded_at", o."updated_at") END
FROM "orders" o
WHERE o."total_cents" > 0 AND (o."status" = 'refunded' OR (o."status" = 'paid' AND o."refund_requested_at" IS NOT NULL));
