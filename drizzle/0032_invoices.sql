CREATE TABLE "invoice_counters" (
	"series" text NOT NULL,
	"year" integer NOT NULL,
	"next_number" integer NOT NULL,
	CONSTRAINT "invoice_counters_series_year_pk" PRIMARY KEY("series","year"),
	CONSTRAINT "invoice_counters_next_number_check" CHECK ("invoice_counters"."next_number" >= 1)
);
--> statement-breakpoint
CREATE TABLE "invoices" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"series" text NOT NULL,
	"year" integer NOT NULL,
	"sequence" integer NOT NULL,
	"number" text NOT NULL,
	"order_id" uuid NOT NULL,
	"credits_invoice_id" uuid,
	"issued_at" timestamp with time zone NOT NULL,
	"currency" text NOT NULL,
	"net_cents" integer NOT NULL,
	"tax_cents" integer NOT NULL,
	"total_cents" integer NOT NULL,
	"document" jsonb NOT NULL,
	"pdf" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "invoices_kind_check" CHECK ("invoices"."kind" in ('invoice', 'credit_note')),
	CONSTRAINT "invoices_series_check" CHECK ("invoices"."series" = case "invoices"."kind" when 'invoice' then 'INV' else 'CN' end),
	CONSTRAINT "invoices_credits_check" CHECK (("invoices"."kind" = 'credit_note') = ("invoices"."credits_invoice_id" is not null)),
	CONSTRAINT "invoices_year_check" CHECK ("invoices"."year" between 2000 and 9999),
	CONSTRAINT "invoices_sequence_check" CHECK ("invoices"."sequence" >= 1),
	CONSTRAINT "invoices_number_check" CHECK ("invoices"."number" = "invoices"."series" || '-' || "invoices"."year"::text || '-' || lpad("invoices"."sequence"::text, greatest(6, length("invoices"."sequence"::text)), '0')),
	CONSTRAINT "invoices_currency_check" CHECK ("invoices"."currency" ~ '^[A-Z]{3}$'),
	CONSTRAINT "invoices_amounts_check" CHECK ("invoices"."net_cents" >= 0 and "invoices"."tax_cents" >= 0 and "invoices"."total_cents" = "invoices"."net_cents" + "invoices"."tax_cents"),
	CONSTRAINT "invoices_credit_note_total_check" CHECK ("invoices"."kind" = 'invoice' or "invoices"."total_cents" > 0)
);
--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_credits_invoice_id_invoices_id_fk" FOREIGN KEY ("credits_invoice_id") REFERENCES "public"."invoices"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_number_unique" ON "invoices" USING btree ("number");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_series_year_sequence_unique" ON "invoices" USING btree ("series","year","sequence");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_one_invoice_per_order" ON "invoices" USING btree ("order_id") WHERE "invoices"."kind" = 'invoice';--> statement-breakpoint
CREATE INDEX "invoices_order_id_idx" ON "invoices" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "invoices_credits_invoice_id_idx" ON "invoices" USING btree ("credits_invoice_id") WHERE "invoices"."credits_invoice_id" is not null;