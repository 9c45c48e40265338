//===- DistAttrs.h - dist strategy attributes -------------------*- C++ -*-===//
#ifndef AUTODIST_DIST_DISTATTRS_H
#define AUTODIST_DIST_DISTATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include <optional>
#include <string>

#include "dist/DistEnums.h.inc"
#include "dist/DistInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dist/DistAttrs.h.inc"

namespace autodist::dist {
/// `AttrT::get` after `AttrT::verify`, for code outside DistAttrs.cpp (where
/// `getChecked` cannot be instantiated); null when verification fails.
template <typename AttrT, typename... Args>
AttrT getVerified(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                  mlir::MLIRContext *ctx, const Args &...args) {
  if (mlir::failed(AttrT::verify(emitError, args...)))
    return {};
  return AttrT::get(ctx, args...);
}
} // namespace autodist::dist

#endif // AUTODIST_DIST_DISTATTRS_H
