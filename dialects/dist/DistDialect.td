//===- DistDialect.td - the dist dialect -------------------*- tablegen -*-===//
//
// The `dist` dialect: AutoDist's unified strategy representation as
// first-class attributes, and the communication ops that synchronization
// passes insert.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_DIST_DIALECT
#define AUTODIST_DIST_DIALECT

include "mlir/IR/OpBase.td"

def Dist_Dialect : Dialect {
  let name = "dist";
  let cppNamespace = "::autodist::dist";
  let summary = "Distribution strategies and communication";
  let description = [{
    Attributes that encode how each trainable parameter is synchronized
    (AutoDist's `Strategy` proto, verified), and the collective ops the
    synchronization passes insert into the training step.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes (defined in DistAttrs.cpp, where their
    /// storage classes are complete).
    void registerAttributes();
    /// Registers the types (DistTypes.cpp).
    void registerTypes();
  }];
}

#endif // AUTODIST_DIST_DIALECT
