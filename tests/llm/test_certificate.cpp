#include "test_certificate.hpp"

#include <memory>
#include <stdexcept>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace aopt::test {

namespace {

template <class T, void (*Free)(T*)>
struct openssl_deleter {
  void operator()(T* p) const { Free(p); }
};
using pkey_ptr = std::unique_ptr<EVP_PKEY, openssl_deleter<EVP_PKEY, EVP_PKEY_free>>;
using x509_ptr = std::unique_ptr<X509, openssl_deleter<X509, X509_free>>;
using bio_ptr = std::unique_ptr<BIO, openssl_deleter<BIO, BIO_free_all>>;
using ext_ptr =
    std::unique_ptr<X509_EXTENSION, openssl_deleter<X509_EXTENSION, X509_EXTENSION_free>>;

void require(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("test certificate: ") + what + " failed");
}

std::string drain(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(size));
}

}  // namespace

test_certificate make_self_signed_certificate(const std::string& subject_alt_names) {
  pkey_ptr key(EVP_EC_gen("P-256"));
  require(key != nullptr, "EVP_EC_gen");
  x509_ptr cert(X509_new());
  require(cert != nullptr, "X509_new");
  require(X509_set_version(cert.get(), 2) == 1, "X509_set_version");
  require(ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 4242) == 1, "serial");
  require(X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) != nullptr, "notBefore");
  require(X509_gmtime_adj(X509_getm_notAfter(cert.get()), 24 * 3600) != nullptr, "notAfter");
  require(X509_set_pubkey(cert.get(), key.get()) == 1, "X509_set_pubkey");
  X509_NAME* name = X509_get_subject_name(cert.get());
  require(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                     reinterpret_cast<const unsigned char*>("aopt test"), -1, -1,
                                     0) == 1,
          "subject");
  require(X509_set_issuer_name(cert.get(), name) == 1, "issuer");

  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert.get(), cert.get(), nullptr, nullptr, 0);
  const std::pair<int, const char*> extensions[] = {
      {NID_basic_constraints, "critical,CA:TRUE"},
      {NID_key_usage, "critical,digitalSignature,keyCertSign"},
      {NID_ext_key_usage, "serverAuth"},
      {NID_subject_alt_name, subject_alt_names.c_str()},
      {NID_subject_key_identifier, "hash"},
  };
  for (const auto& [nid, value] : extensions) {
    ext_ptr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
    require(ext != nullptr, "X509V3_EXT_conf_nid");
    require(X509_add_ext(cert.get(), ext.get(), -1) == 1, "X509_add_ext");
  }
  require(X509_sign(cert.get(), key.get(), EVP_sha256()) > 0, "X509_sign");

  test_certificate out;
  bio_ptr cert_bio(BIO_new(BIO_s_mem()));
  require(PEM_write_bio_X509(cert_bio.get(), cert.get()) == 1, "PEM_write_bio_X509");
  out.certificate_pem = drain(cert_bio.get());
  bio_ptr key_bio(BIO_new(BIO_s_mem()));
  require(PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0, nullptr,
                                   nullptr) == 1,
          "PEM_write_bio_PrivateKey");
  out.private_key_pem = drain(key_bio.get());
  return out;
}

}  // namespace aopt::test
