// The hosted page's card form: brand detection, spacing, Luhn and expiry checks as the shopper
// types, clear messages next to each field, and a pay button that sends once. Messages come from
// the form's data-msg-* attributes (the page's language). The server checks everything again:
// without this script the form still works.
(function () {
  'use strict';
  var form = document.getElementById('card-form');
  if (!form) return;
  form.noValidate = true;

  var msg = function (name) { return form.getAttribute('data-msg-' + name) || ''; };
  var fields = {
    holder: document.getElementById('holder_name'),
    number: document.getElementById('card_number'),
    expiry: document.getElementById('expiry'),
    cvc: document.getElementById('security_code')
  };
  var brandLabel = document.getElementById('card-brand');
  var summary = document.getElementById('form-errors');
  var button = document.getElementById('pay-button');
  var sending = false;

  // Prefix rules (longest first within a brand); lengths and CVC sizes per scheme.
  var BRANDS = [
    { name: 'American Express', test: /^3[47]/, lengths: [15], full: 15, cvc: 4, gaps: [4, 10] },
    { name: 'Diners Club', test: /^3(0[0-5]|[689])/, lengths: [14, 16, 19], full: 14, cvc: 3, gaps: [4, 10] },
    { name: 'JCB', test: /^35(2[89]|[3-8])/, lengths: [16, 17, 18, 19], full: 16, cvc: 3, gaps: [4, 8, 12] },
    { name: 'Discover', test: /^(6011|64[4-9]|65)/, lengths: [16, 19], full: 16, cvc: 3, gaps: [4, 8, 12] },
    { name: 'UnionPay', test: /^62/, lengths: [16, 17, 18, 19], full: 16, cvc: 3, gaps: [4, 8, 12] },
    { name: 'Mastercard', test: /^(5[1-5]|2(2[2-9][1-9]|2[3-9]|[3-6]|7[01]|720))/, lengths: [16], full: 16, cvc: 3, gaps: [4, 8, 12] },
    { name: 'Maestro', test: /^(5018|5020|5038|6304|6759|676[1-3])/, lengths: [12, 13, 14, 15, 16, 17, 18, 19], full: 16, cvc: 3, gaps: [4, 8, 12] },
    { name: 'Visa', test: /^4/, lengths: [13, 16, 19], full: 16, cvc: 3, gaps: [4, 8, 12] }
  ];
  var OTHER = { name: '', lengths: [12, 13, 14, 15, 16, 17, 18, 19], full: 16, cvc: 3, gaps: [4, 8, 12] };

  // NFKC first: full-width digits and spaces ("４１１１ １１１１", as a Chinese or Japanese input
  // method types them) are the shopper's digits too, as the server reads them.
  function ascii(text) { return text.normalize('NFKC'); }
  // Six digits of any script in a name, however spaced or dashed, are a card number in the wrong
  // field (as the server judges). Built at run time: a browser without Unicode property escapes
  // falls back to ASCII digits and dashes instead of losing the whole script to a syntax error.
  var CARD_DIGITS = (function () {
    try { return new RegExp('(?:\\p{Nd}[\\s.\\p{Pd}\\u2212\\u2796\\u30FC\\uFF70]*){6}', 'u'); } catch { return /(?:\d[\s.\u2010-\u2015\u2212\u30FC\uFF0D\uFF70-]*){6}/; }
  })();
  function digits(text) { return ascii(text).replace(/\D/g, ''); }
  function brandOf(number) {
    for (var i = 0; i < BRANDS.length; i++) if (BRANDS[i].test.test(number)) return BRANDS[i];
    return OTHER;
  }
  function luhn(number) {
    var sum = 0;
    for (var i = 0; i < number.length; i++) {
      var d = Number(number.charAt(number.length - 1 - i));
      if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
      sum += d;
    }
    return sum % 10 === 0;
  }
  function spaced(number, gaps) {
    var out = '';
    for (var i = 0; i < number.length; i++) {
      if (gaps.indexOf(i) !== -1) out += ' ';
      out += number.charAt(i);
    }
    return out;
  }

  function problem(name) {
    var value = fields[name].value;
    if (name === 'holder') return value.trim() === '' || CARD_DIGITS.test(ascii(value)) ? msg('holder') : '';
    if (name === 'number') {
      var n = digits(value);
      var brand = brandOf(n);
      return brand.lengths.indexOf(n.length) === -1 || !luhn(n) ? msg('number') : '';
    }
    if (name === 'expiry') {
      var m = /^\s*(\d{1,2})\s*\/?\s*(\d{2})\s*$/.exec(ascii(value));
      if (!m || Number(m[1]) < 1 || Number(m[1]) > 12) return msg('expiry');
      var now = new Date();
      var year = 2000 + Number(m[2]);
      var month = Number(m[1]);
      if (year < now.getFullYear() || (year === now.getFullYear() && month < now.getMonth() + 1)) return msg('expired');
      return '';
    }
    var size = brandOf(digits(fields.number.value)).cvc;
    return new RegExp('^\\d{' + size + '}$').test(ascii(value).trim()) ? '' : msg('cvc').replace('{n}', String(size));
  }

  function show(name, text) {
    var input = fields[name];
    var error = document.getElementById(input.id + '-error');
    input.setAttribute('aria-invalid', text ? 'true' : 'false');
    if (error) error.textContent = text;
  }

  // While an input method composes, the text is its own: each field is formatted once it commits.
  ['number', 'expiry', 'cvc'].forEach(function (name) {
    fields[name].addEventListener('compositionend', function () {
      fields[name].dispatchEvent(new window.Event('input'));
    });
  });

  fields.number.addEventListener('input', function (event) {
    if (event.isComposing) return;
    var n = digits(fields.number.value).slice(0, 19);
    var brand = brandOf(n);
    var caret = fields.number.selectionStart === fields.number.value.length;
    fields.number.value = spaced(n, brand.gaps);
    if (caret) fields.number.setSelectionRange(fields.number.value.length, fields.number.value.length);
    brandLabel.textContent = brand.name;
    fields.cvc.maxLength = brand.cvc;
    // Checked once a full-length number is typed, not on every keystroke before.
    if (n.length >= brand.full) show('number', problem('number'));
    else if (fields.number.getAttribute('aria-invalid') === 'true') show('number', '');
  });

  fields.expiry.addEventListener('input', function (event) {
    if (event.isComposing) return;
    var d = digits(fields.expiry.value).slice(0, 4);
    if (d.length === 1 && Number(d) > 1) d = '0' + d;
    var deleting = event.inputType && event.inputType.indexOf('delete') === 0;
    fields.expiry.value = d.length > 2 || (d.length === 2 && !deleting) ? d.slice(0, 2) + ' / ' + d.slice(2) : d;
    if (d.length === 4) show('expiry', problem('expiry'));
    else if (fields.expiry.getAttribute('aria-invalid') === 'true') show('expiry', '');
  });

  fields.cvc.addEventListener('input', function (event) {
    if (event.isComposing) return;
    fields.cvc.value = digits(fields.cvc.value).slice(0, brandOf(digits(fields.number.value)).cvc);
  });

  Object.keys(fields).forEach(function (name) {
    fields[name].addEventListener('blur', function (event) {
      // Leaving for the pay button: the submit checks every field, and a message appearing now
      // would move the button away from under the pointer before the click lands.
      if (event.relatedTarget === button) return;
      if (fields[name].value !== '') show(name, problem(name));
    });
  });

  form.addEventListener('submit', function (event) {
    if (sending) { event.preventDefault(); return; }
    var first = null;
    Object.keys(fields).forEach(function (name) {
      var text = problem(name);
      show(name, text);
      if (text && !first) first = fields[name];
    });
    if (first) {
      event.preventDefault();
      summary.innerHTML = '';
      var p = document.createElement('p');
      p.textContent = msg('summary');
      summary.appendChild(p);
      first.focus();
      return;
    }
    sending = true;
    button.setAttribute('aria-disabled', 'true');
    button.disabled = true;
    button.textContent = msg('paying');
    form.setAttribute('aria-busy', 'true');
    Object.keys(fields).forEach(function (name) { fields[name].readOnly = true; });
  });

  window.addEventListener('pageshow', function (event) {
    if (!event.persisted) return;
    sending = false;
    button.disabled = false;
    button.removeAttribute('aria-disabled');
    button.textContent = msg('pay');
    Object.keys(fields).forEach(function (name) { fields[name].readOnly = false; });
  });
})();
