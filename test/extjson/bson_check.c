/*-------------------------------------------------------------------------
 *
 * bson_check.c
 *	  Read JSON Lines (Relaxed Extended JSON) on stdin, parse every line with
 *	  libbson's bson_init_from_json(), and print the typed values it found,
 *	  one per line, for test/t/extjson_libbson.sh to compare with the source
 *	  rows in SQL:
 *
 *		<line number> TAB <dotted key path> TAB <bson type> TAB <value>
 *
 *	  Values: double as its IEEE bits in hex, int32/int64 in decimal,
 *	  strings as hex of their UTF-8 bytes, date_time in milliseconds,
 *	  decimal128 as libbson's string, binary as "<subtype hex>:<data hex>",
 *	  oid as 24 hex digits, bool as t/f.  Documents and arrays recurse.
 *	  A line libbson cannot parse prints "<line> TAB - TAB error TAB msg"
 *	  and makes the exit status 1.
 *
 *-------------------------------------------------------------------------
 */
#include <bson.h>
#include <stdio.h>
#include <string.h>

static void print_doc(long line, const char *prefix, const bson_t * doc);

/*
 * print_hex
 *		Write len bytes as lower-case hex.
 */
static void
print_hex(const uint8_t *p, size_t len)
{
	size_t		i;

	for (i = 0; i < len; i++)
		printf("%02x", p[i]);
}

/*
 * print_value
 *		One element at iter, under the key path "path".
 */
static void
print_value(long line, const char *path, bson_iter_t * iter)
{
	switch (bson_iter_type(iter))
	{
		case BSON_TYPE_DOUBLE:
			{
				double		d = bson_iter_double(iter);
				uint64_t	bits;

				memcpy(&bits, &d, 8);
				printf("%ld\t%s\tdouble\t%016llx\n", line, path, (unsigned long long) bits);
				break;
			}
		case BSON_TYPE_INT32:
			printf("%ld\t%s\tint\t%d\n", line, path, bson_iter_int32(iter));
			break;
		case BSON_TYPE_INT64:
			printf("%ld\t%s\tint\t%lld\n", line, path, (long long) bson_iter_int64(iter));
			break;
		case BSON_TYPE_UTF8:
			{
				uint32_t	len;
				const char *s = bson_iter_utf8(iter, &len);

				printf("%ld\t%s\tstring\t", line, path);
				print_hex((const uint8_t *) s, len);
				printf("\n");
				break;
			}
		case BSON_TYPE_DATE_TIME:
			printf("%ld\t%s\tdate\t%lld\n", line, path, (long long) bson_iter_date_time(iter));
			break;
		case BSON_TYPE_DECIMAL128:
			{
				bson_decimal128_t dec;
				char		str[BSON_DECIMAL128_STRING];

				bson_iter_decimal128(iter, &dec);
				bson_decimal128_to_string(&dec, str);
				printf("%ld\t%s\tdecimal\t%s\n", line, path, str);
				break;
			}
		case BSON_TYPE_BINARY:
			{
				bson_subtype_t st;
				uint32_t	len;
				const uint8_t *data;

				bson_iter_binary(iter, &st, &len, &data);
				printf("%ld\t%s\tbinary\t%02x:", line, path, (unsigned) st);
				print_hex(data, len);
				printf("\n");
				break;
			}
		case BSON_TYPE_OID:
			{
				char		hex[25];

				bson_oid_to_string(bson_iter_oid(iter), hex);
				printf("%ld\t%s\toid\t%s\n", line, path, hex);
				break;
			}
		case BSON_TYPE_BOOL:
			printf("%ld\t%s\tbool\t%s\n", line, path, bson_iter_bool(iter) ? "t" : "f");
			break;
		case BSON_TYPE_NULL:
			printf("%ld\t%s\tnull\t\n", line, path);
			break;
		case BSON_TYPE_DOCUMENT:
		case BSON_TYPE_ARRAY:
			{
				uint32_t	len;
				const uint8_t *data;
				bson_t		sub;

				if (bson_iter_type(iter) == BSON_TYPE_DOCUMENT)
					bson_iter_document(iter, &len, &data);
				else
					bson_iter_array(iter, &len, &data);
				if (bson_init_static(&sub, data, len))
					print_doc(line, path, &sub);
				break;
			}
		default:
			printf("%ld\t%s\ttype%02x\t\n", line, path, (unsigned) bson_iter_type(iter));
			break;
	}
}

/*
 * print_doc
 *		Every element of doc, keys prefixed by "prefix.".
 */
static void
print_doc(long line, const char *prefix, const bson_t * doc)
{
	bson_iter_t iter;

	if (!bson_iter_init(&iter, doc))
		return;
	while (bson_iter_next(&iter))
	{
		char		path[1024];

		snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "",
				 bson_iter_key(&iter));
		print_value(line, path, &iter);
	}
}

int
main(void)
{
	char	   *buf = NULL;
	size_t		cap = 0;
	ssize_t		n;
	long		line = 0;
	int			status = 0;

	while ((n = getline(&buf, &cap, stdin)) >= 0)
	{
		bson_t		doc;
		bson_error_t error;

		line++;
		if (n > 0 && buf[n - 1] == '\n')
			buf[--n] = '\0';
		if (!bson_init_from_json(&doc, buf, n, &error))
		{
			printf("%ld\t-\terror\t%s\n", line, error.message);
			status = 1;
			continue;
		}
		print_doc(line, "", &doc);
		bson_destroy(&doc);
	}
	free(buf);
	return status;
}
