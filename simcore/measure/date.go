package measure

import (
	"errors"
	"strconv"
)

// isoDate checks that s starts with a calendar date YYYY-MM-DD and returns it.
func isoDate(s string) (string, error) {
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return "", errors.New("\"" + s + "\" does not start with a date YYYY-MM-DD")
	}
	if err := checkDate(s[:4], s[5:7], s[8:10]); err != nil {
		return "", err
	}
	return s[:10], nil
}

// compactDate reads a date written YYYYMMDD (optionally followed by "-HHMMSS", as vLLM's
// benchmark writes it) as YYYY-MM-DD.
func compactDate(s string) (string, error) {
	if len(s) < 8 {
		return "", errors.New("\"" + s + "\" does not start with a date YYYYMMDD")
	}
	if err := checkDate(s[:4], s[4:6], s[6:8]); err != nil {
		return "", err
	}
	return s[:4] + "-" + s[4:6] + "-" + s[6:8], nil
}

// checkDate checks year, month and day digits.
func checkDate(y, m, d string) error {
	yy, e1 := strconv.Atoi(y)
	mm, e2 := strconv.Atoi(m)
	dd, e3 := strconv.Atoi(d)
	if e1 != nil || e2 != nil || e3 != nil || yy < 1970 || yy > 9999 || mm < 1 || mm > 12 || dd < 1 || dd > 31 {
		return errors.New("\"" + y + "-" + m + "-" + d + "\" is not a date")
	}
	return nil
}

// epochDate is the UTC calendar date YYYY-MM-DD of a time in nanoseconds since 1970-01-01
// (civil-from-days, proleptic Gregorian), computed from the number alone.
func epochDate(ns int64) string {
	z := ns/86_400_000_000_000 + 719468
	era := z / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if mp >= 10 {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	two := func(v int64) string {
		if v < 10 {
			return "0" + strconv.FormatInt(v, 10)
		}
		return strconv.FormatInt(v, 10)
	}
	return strconv.FormatInt(y, 10) + "-" + two(m) + "-" + two(d)
}
