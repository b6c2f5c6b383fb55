CREATE TABLE "tax_rates" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"country" text NOT NULL,
	"effective_from" date NOT NULL,
	"ebook_rate_bp" integer NOT NULL,
	"standard_rate_bp" integer NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"source" text DEFAULT 'owner' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tax_rates_country_check" CHECK ("tax_rates"."country" ~ '^[A-Z]{2}$'),
	CONSTRAINT "tax_rates_rate_check" CHECK ("tax_rates"."ebook_rate_bp" between 0 and 10000 and "tax_rates"."standard_rate_bp" between 0 and 10000),
	CONSTRAINT "tax_rates_source_check" CHECK ("tax_rates"."source" in ('shipped', 'owner'))
);
--> statement-breakpoint
ALTER TABLE "order_items" ADD COLUMN "tax_rate_bp" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "order_items" ADD COLUMN "net_cents" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "order_items" ADD COLUMN "tax_cents" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "order_items" ADD COLUMN "gross_cents" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "net_cents" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "tax_cents" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "tax_country" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "prices_include_tax" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "reverse_charge" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "buyer_vat_number" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "billing_country" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "ip_country" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "card_country" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "evidence_status" text;--> statement-breakpoint
CREATE UNIQUE INDEX "tax_rates_country_from_unique" ON "tax_rates" USING btree ("country","effective_from");--> statement-breakpoint
-- Orders made before tax was recorded: every line and order as net, no tax (their country is unknown).
UPDATE "order_items" SET "net_cents" = "price_cents", "gross_cents" = "price_cents";--> statement-breakpoint
UPDATE "orders" SET "net_cents" = "total_cents";--> statement-breakpoint
ALTER TABLE "order_items" ADD CONSTRAINT "order_items_tax_check" CHECK ("order_items"."tax_cents" >= 0 and "order_items"."net_cents" >= 0 and "order_items"."net_cents" + "order_items"."tax_cents" = "order_items"."gross_cents" and "order_items"."tax_rate_bp" between 0 and 10000);--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_tax_check" CHECK ("orders"."tax_cents" >= 0 and "orders"."net_cents" >= 0 and "orders"."net_cents" + "orders"."tax_cents" = "orders"."total_cents");--> statement-breakpoint
-- The rates the store ships with (features/tax/tax-rates-data.ts, as written on 2026-12-06): the owner's to change.
INSERT INTO "tax_rates" ("country", "effective_from", "ebook_rate_bp", "standard_rate_bp", "note", "source") VALUES
('AT', '2016-01-01', 2000, 2000, '', 'shipped'),
('AT', '2020-01-01', 1000, 2000, 'eBooks at the reduced rate', 'shipped'),
('BE', '2016-01-01', 2100, 2100, '', 'shipped'),
('BE', '2022-01-01', 600, 2100, '', 'shipped'),
('BG', '2021-01-01', 900, 2000, '', 'shipped'),
('HR', '2019-01-01', 500, 2500, '', 'shipped'),
('CY', '2019-01-01', 500, 1900, '', 'shipped'),
('CZ', '2020-05-01', 1000, 2100, '', 'shipped'),
('CZ', '2024-01-01', 0, 2100, 'books zero-rated', 'shipped'),
('DK', '2016-01-01', 2500, 2500, '', 'shipped'),
('EE', '2024-01-01', 900, 2200, '', 'shipped'),
('EE', '2025-07-01', 900, 2400, '', 'shipped'),
('FI', '2019-07-01', 1000, 2400, '', 'shipped'),
('FI', '2024-09-01', 1000, 2550, '', 'shipped'),
('FI', '2025-01-01', 1400, 2550, '', 'shipped'),
('FR', '2016-01-01', 550, 2000, '', 'shipped'),
('DE', '2016-01-01', 1900, 1900, '', 'shipped'),
('DE', '2019-12-18', 700, 1900, 'eBooks at the reduced rate', 'shipped'),
('DE', '2020-07-01', 500, 1600, 'temporary cut (COVID-19)', 'shipped'),
('DE', '2021-01-01', 700, 1900, '', 'shipped'),
('GR', '2016-06-01', 600, 2400, '', 'shipped'),
('HU', '2016-01-01', 500, 2700, '', 'shipped'),
('IE', '2021-03-01', 900, 2300, '', 'shipped'),
('IE', '2022-05-01', 0, 2300, 'eBooks zero-rated', 'shipped'),
('IT', '2016-01-01', 400, 2200, '', 'shipped'),
('LV', '2019-01-01', 500, 2100, '', 'shipped'),
('LT', '2019-01-01', 900, 2100, '', 'shipped'),
('LU', '2024-01-01', 300, 1700, '', 'shipped'),
('MT', '2019-01-01', 500, 1800, '', 'shipped'),
('NL', '2019-01-01', 900, 2100, '', 'shipped'),
('PL', '2019-01-01', 500, 2300, '', 'shipped'),
('PT', '2019-01-01', 600, 2300, '', 'shipped'),
('RO', '2017-01-01', 500, 1900, '', 'shipped'),
('RO', '2025-08-01', 1100, 2100, '', 'shipped'),
('SK', '2019-01-01', 1000, 2000, '', 'shipped'),
('SK', '2025-01-01', 500, 2300, '', 'shipped'),
('SI', '2019-01-01', 500, 2200, '', 'shipped'),
('ES', '2020-04-23', 400, 2100, '', 'shipped'),
('SE', '2019-07-01', 600, 2500, '', 'shipped'),
('GB', '2016-01-01', 2000, 2000, '', 'shipped'),
('GB', '2020-05-01', 0, 2000, 'e-publications zero-rated', 'shipped'),
('NO', '2016-01-01', 0, 2500, 'eBooks zero-rated', 'shipped'),
('CH', '2024-01-01', 260, 810, '', 'shipped'),
('AU', '2017-07-01', 1000, 1000, '', 'shipped'),
('NZ', '2016-10-01', 1500, 1500, '', 'shipped'),
('JP', '2019-10-01', 1000, 1000, '', 'shipped');
