CREATE TABLE "book_prices" (
	"book_id" uuid NOT NULL,
	"currency" text NOT NULL,
	"price_cents" integer NOT NULL,
	CONSTRAINT "book_prices_book_id_currency_pk" PRIMARY KEY("book_id","currency"),
	CONSTRAINT "book_prices_currency_check" CHECK ("book_prices"."currency" ~ '^[A-Z]{3}$'),
	CONSTRAINT "book_prices_price_cents_check" CHECK ("book_prices"."price_cents" >= 0)
);
--> statement-breakpoint
ALTER TABLE "book_prices" ADD CONSTRAINT "book_prices_book_id_books_id_fk" FOREIGN KEY ("book_id") REFERENCES "public"."books"("id") ON DELETE cascade ON UPDATE no action;