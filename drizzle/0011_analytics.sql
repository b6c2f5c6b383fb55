CREATE TABLE "analytics_daily" (
	"day" date NOT NULL,
	"name" text NOT NULL,
	"currency" text DEFAULT '' NOT NULL,
	"events" bigint NOT NULL,
	"value_cents" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "analytics_daily_day_name_currency_pk" PRIMARY KEY("day","name","currency")
);
--> statement-breakpoint
CREATE TABLE "analytics_daily_books" (
	"day" date NOT NULL,
	"book_id" uuid NOT NULL,
	"views" bigint DEFAULT 0 NOT NULL,
	"purchases" bigint DEFAULT 0 NOT NULL,
	"revenue_cents" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "analytics_daily_books_day_book_id_pk" PRIMARY KEY("day","book_id")
);
--> statement-breakpoint
CREATE TABLE "analytics_daily_visitors" (
	"day" date PRIMARY KEY NOT NULL,
	"visitors" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "analytics_daily_zero_searches" (
	"day" date NOT NULL,
	"query" text NOT NULL,
	"searches" bigint NOT NULL,
	CONSTRAINT "analytics_daily_zero_searches_day_query_pk" PRIMARY KEY("day","query")
);
--> statement-breakpoint
CREATE TABLE "analytics_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "analytics_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"occurred_at" timestamp with time zone NOT NULL,
	"name" text NOT NULL,
	"visitor" text,
	"path" text,
	"referrer_host" text,
	"book_id" uuid,
	"order_id" uuid,
	"value_cents" integer,
	"currency" text,
	"items" jsonb,
	"query" text,
	"result_count" integer,
	CONSTRAINT "analytics_events_name_check" CHECK ("analytics_events"."name" in ('page_view', 'view_item', 'add_to_cart', 'remove_from_cart', 'begin_checkout', 'purchase', 'search', 'download'))
);
--> statement-breakpoint
CREATE TABLE "analytics_salts" (
	"day" date PRIMARY KEY NOT NULL,
	"salt" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "analytics_visitor_days" (
	"day" date NOT NULL,
	"visitor" text NOT NULL,
	CONSTRAINT "analytics_visitor_days_day_visitor_pk" PRIMARY KEY("day","visitor")
);
--> statement-breakpoint
CREATE INDEX "analytics_events_occurred_at_idx" ON "analytics_events" USING btree ("occurred_at");--> statement-breakpoint
CREATE UNIQUE INDEX "analytics_events_purchase_unique" ON "analytics_events" USING btree ("order_id") WHERE "analytics_events"."name" = 'purchase';